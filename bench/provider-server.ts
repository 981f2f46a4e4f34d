import { issueGrantToken } from '../src/operations/issue-tokens.ts';
import { startHttpServer } from '../src/surfaces/http/server.ts';
import { runEntry, seedBenchProvider, serveUntilStopped } from './bench-provider.ts';

// Child-process entry of `npm run bench`: the real provider (SQLite file store, token
// verification, grant re-read, policy, resolution, one audit write per request), rate limiting
// off. Prints one JSON line {"url","token"} on stdout, then serves until stopped.

runEntry(async () => {
  const bench = await seedBenchProvider('ppx-bench-');
  const token = (await issueGrantToken(bench.deps, bench.grant)).access_token;
  const server = await startHttpServer(bench.deps, bench.config, (msg) =>
    process.stderr.write(`[provider] ${msg}\n`),
  );
  serveUntilStopped(bench, server, { url: server.url, token });
});
