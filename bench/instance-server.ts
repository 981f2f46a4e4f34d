import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { openProvider } from '../src/provider.ts';
import { startServer } from '../src/server.ts';
import { freePort } from '../test/support/provider.ts';
import { runEntry, serveUntilStopped } from './bench-provider.ts';

// Child-process entry of `npm run bench:stores`: another instance of the provider on the
// PostgreSQL database a provider-server.ts child seeded, with that provider's public base URL
// (tokens name it as issuer and audience, docs/deploy.md), on a port of its own. Seeds nothing.
// Prints {"url"} and serves until stopped.

runEntry(async () => {
  const { values } = parseArgs({
    options: { 'database-url': { type: 'string' }, 'base-url': { type: 'string' } },
  });
  const databaseUrl = values['database-url'];
  const baseUrl = values['base-url'];
  if (!databaseUrl || !baseUrl)
    throw new Error('usage: instance-server.ts --database-url URL --base-url URL');
  const port = String(await freePort());
  const config = loadConfig({ host: '127.0.0.1', port, databaseUrl, baseUrl, rateLimit: '0' }, {});
  if (!config.ok) throw new Error(config.error.description);
  const deps = await openProvider(config.value);
  const server = await startServer(deps, config.value, (msg) => process.stderr.write(`[instance] ${msg}\n`));
  serveUntilStopped({ deps }, server, { url: `http://127.0.0.1:${port}` });
});
