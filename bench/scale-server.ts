import { loadConfig } from '../src/config.ts';
import { scaleSubjectId } from '../src/operations/seed/scale-seed.ts';
import { issueGrantToken, issueSubjectToken } from '../src/operations/tokens/issue-tokens.ts';
import { openProvider } from '../src/provider.ts';
import { startServer } from '../src/server.ts';
import { freePort } from '../test/support/provider.ts';
import { runEntry } from './bench-provider.ts';

// Child-process entry of `npm run bench:scale`: the real provider on a store seeded by `ppx seed
// --scale` (the file path or PostgreSQL URL in argv[2]), rate limiting off. Prints {"url","grantToken","subjectToken"}:
// a token for the first grant of the first scale subject (a 200-claim profile) and that subject's
// own, then serves until stopped (SIGTERM, or stdin closing).

runEntry(async () => {
  const where = process.argv[2];
  if (!where) throw new Error('usage: scale-server.ts <db path or postgres:// URL>');
  const port = String(await freePort());
  const store = /^postgres(ql)?:/.test(where) ? { databaseUrl: where } : { dbPath: where };
  const config = loadConfig({ host: '127.0.0.1', port, ...store, rateLimit: '0' }, {});
  if (!config.ok) throw new Error(config.error.description);
  const deps = await openProvider(config.value);
  const grant = await deps.store.getGrant('ppx:grant:scale-0000000-000');
  if (!grant) throw new Error('the store has no scale subject: run ppx seed --scale first');
  const grantToken = (await issueGrantToken(deps, grant, 3600)).access_token;
  const subjectToken = (await issueSubjectToken(deps, scaleSubjectId(0), 3600)).access_token;
  const server = await startServer(deps, config.value, (msg) => process.stderr.write(`[provider] ${msg}\n`));
  const stop = async () => {
    await server.close();
    await deps.store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ url: server.url, grantToken, subjectToken })}\n`);
});
