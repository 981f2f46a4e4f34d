import { parseArgs } from 'node:util';
import { issueGrantToken, issueSubjectToken } from '../src/operations/tokens/issue-tokens.ts';
import { startServer } from '../src/server.ts';
import {
  type BenchProvider,
  DEMO,
  LARGE,
  readerOf,
  runEntry,
  seedBenchProvider,
  serveUntilStopped,
} from './bench-provider.ts';

// Child-process entry of `npm run bench` and `npm run bench:mcp`: the real provider (SQLite file
// store, token verification, grant re-read, policy, resolution, one audit write per request), rate
// limiting off. Prints one JSON line {"url","token","subjectToken","baseUrl"} on stdout (the grant's
// token, and one of the profile's subject for what a person does: bench:refresh approves consent
// with it), then serves until stopped.
// `--database-url URL` (bench:stores): on PostgreSQL, in the empty schema the URL names.
// `--audience mcp` (bench:mcp) or `a2a` (bench:a2a): the grant token's audience is `${url}/mcp`
// or `${url}/a2a` (RFC 8707) instead of the HTTP API; `all` (bench:surfaces): `token` is the HTTP
// API's, and the ready line also carries `mcpToken` and `a2aToken`, of the same grant. `--profile demo` (bench --profile small): the demo profile instead of the
// 200-claim fixture, read under a grant of the demo client. `--dpop-jkt JKT` (bench:dpop): the
// ready line also carries `dpopToken`, a token of the same grant bound to that key (RFC 9449 cnf.jkt).

runEntry(async () => {
  const { values } = parseArgs({
    options: {
      audience: { type: 'string', default: 'http' },
      profile: { type: 'string', default: 'large' },
      'database-url': { type: 'string' },
      'dpop-jkt': { type: 'string' },
    },
  });
  const all = values.audience === 'all';
  if (values.audience !== 'http' && values.audience !== 'mcp' && values.audience !== 'a2a' && !all)
    throw new Error(`--audience must be http, mcp, a2a or all, not ${values.audience}`);
  if (values.profile !== 'large' && values.profile !== 'demo')
    throw new Error(`--profile must be large or demo, not ${values.profile}`);
  const surface = values.audience === 'http' || all ? undefined : values.audience;
  const profile = values.profile === 'demo' ? DEMO : LARGE;
  const bench = await seedBenchProvider(
    surface ? `ppx-bench-${surface}-` : 'ppx-bench-',
    profile,
    undefined,
    values['database-url'],
  );
  const audience = surface ? `${bench.deps.provider.baseUrl}/${surface}` : undefined;
  const token = (await issueGrantToken(bench.deps, bench.grant, undefined, audience)).access_token;
  const jkt = values['dpop-jkt'];
  const dpopToken =
    jkt === undefined
      ? undefined
      : (await issueGrantToken(bench.deps, bench.grant, undefined, audience, jkt)).access_token;
  const surfaceTokens: Record<string, string> = all
    ? {
        mcpToken: await tokenFor(bench, `${bench.deps.provider.baseUrl}/mcp`),
        a2aToken: await tokenFor(bench, `${bench.deps.provider.baseUrl}/a2a`),
      }
    : {};
  const subjectToken = (await issueSubjectToken(bench.deps, readerOf(profile).subject, 3600)).access_token;
  const server = await startServer(bench.deps, bench.config, (msg) =>
    process.stderr.write(`[provider] ${msg}\n`),
  );
  serveUntilStopped(bench, server, {
    url: server.url,
    token,
    subjectToken,
    baseUrl: bench.deps.provider.baseUrl,
    ...(dpopToken === undefined ? {} : { dpopToken }),
    ...surfaceTokens,
  });
});

/** A token of the bench's grant for one resource (its audience, RFC 8707). */
async function tokenFor(bench: BenchProvider, audience: string): Promise<string> {
  return (await issueGrantToken(bench.deps, bench.grant, undefined, audience)).access_token;
}
