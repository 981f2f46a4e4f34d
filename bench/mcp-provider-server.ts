import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { registerClient } from '../src/operations/clients.ts';
import { createGrant } from '../src/operations/grants.ts';
import { importProfile } from '../src/operations/import-profile.ts';
import { issueGrantToken } from '../src/operations/issue-tokens.ts';
import { openProvider } from '../src/provider.ts';
import { startHttpServer } from '../src/surfaces/http/server.ts';
import { BENCH_CLIENT, BENCH_NAMESPACES, BENCH_SUBJECT, benchProfile } from './fixtures.ts';

// Child-process entry for `npm run bench:mcp`: the real provider as bench/provider-server.ts sets
// it up (SQLite file store, the 200-claim fixture, a grant over core/fragrance/travel, rate limiting
// off), with a grant token whose audience is `${url}/mcp` (RFC 8707). Prints one JSON line
// {"url","token"}, serves until SIGTERM/SIGINT or stdin closes; exits through process.exit so
// that --cpu-prof can write its profile.

function check<T>(
  r: { ok: true; value: T } | { ok: false; error: { description: string } },
  what: string,
): T {
  if (!r.ok) throw new Error(`bench mcp provider: ${what} failed: ${r.error.description}`);
  return r.value;
}

/** The base URL (and so the token audience) must name the real port: pick a free one first. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ppx-bench-mcp-'));
  const port = String(await freePort());
  const config = check(
    loadConfig({ host: '127.0.0.1', port, dbPath: join(dir, 'ppx.db'), rateLimit: '0' }, {}),
    'loadConfig',
  );
  const deps = await openProvider(config);
  const imported = check(await importProfile(deps, benchProfile()), 'importProfile');
  if (imported.claims !== 200) throw new Error(`bench mcp provider: imported ${imported.claims} claims`);
  check(await registerClient(deps, { client_id: BENCH_CLIENT, name: 'Benchmark client' }), 'registerClient');
  const grant = check(
    await createGrant(
      deps,
      {
        subject_id: BENCH_SUBJECT,
        client_id: BENCH_CLIENT,
        purposes: ['recommendation'],
        allowed_domains: [...BENCH_NAMESPACES],
        allowed_namespaces: [...BENCH_NAMESPACES],
        allowed_operations: ['read', 'query'],
        expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      },
      'operator',
    ),
    'createGrant',
  );
  const server = await startHttpServer(deps, config, (msg) => process.stderr.write(`[provider] ${msg}\n`));
  const token = (await issueGrantToken(deps, grant, 3600, `${deps.provider.baseUrl}/mcp`)).access_token;

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      await server.close();
      await deps.store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.on('error', () => void stop());
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ url: server.url, token })}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`[provider] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
