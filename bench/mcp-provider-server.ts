import { issueGrantToken } from '../src/operations/issue-tokens.ts';
import { startHttpServer } from '../src/surfaces/http/server.ts';
import { runEntry, seedBenchProvider, serveUntilStopped } from './bench-provider.ts';

// Child-process entry of `npm run bench:mcp`: the provider bench/provider-server.ts runs, with a
// grant token whose audience is `${url}/mcp` (RFC 8707). Prints one JSON line {"url","token"},
// then serves until stopped.

runEntry(async () => {
  const bench = await seedBenchProvider('ppx-bench-mcp-');
  const token = (await issueGrantToken(bench.deps, bench.grant, 3600, `${bench.deps.provider.baseUrl}/mcp`))
    .access_token;
  const server = await startHttpServer(bench.deps, bench.config, (msg) =>
    process.stderr.write(`[provider] ${msg}\n`),
  );
  serveUntilStopped(bench, server, { url: server.url, token });
});
