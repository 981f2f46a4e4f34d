import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './children.ts';
import { BENCH_CONTEXT, CLAIM_COUNT } from './fixtures.ts';
import {
  benchArgs,
  machine,
  measure,
  post,
  providerExecArgv,
  resultsDir,
  runMain,
  settings,
  type Target,
  withDeadline,
  writeResults,
} from './harness.ts';
import { summarizeProfiles } from './profile-summary.ts';
import { roundsRecord, roundsTable } from './rounds.ts';

// `npm run bench:mcp [-- --rounds 3 --duration 10 --connections 50 --warmup 2 --cold]`
// `tools/call ppx_get_effective_profile` over Streamable HTTP: the provider's /mcp (bearer token
// for `${url}/mcp`, auth, grant re-read, policy, store, resolution, audit) side by side with a
// bare SDK server returning the same result precomputed (bench/mcp-baseline-server.ts), in the
// same run, one after the other, the order alternating round by round, with the same autocannon
// load. Writes bench/results/mcp.json.
// BENCH_PROFILE=1 runs the provider under --cpu-prof and prints its hot spots afterwards.
// --cold gives every request a context of its own, so the provider can reuse nothing between
// requests (the bare server answers the same precomputed result; results in mcp-cold.json).

const here = import.meta.dirname;
const PROTOCOL_VERSION = '2025-11-25';
const TOOL = 'ppx_get_effective_profile';
const bodyFor = (context: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: TOOL, arguments: { context } },
  });
const BODY = bodyFor(BENCH_CONTEXT);

function headers(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/** One call, checked: 200, a JSON-RPC result that is not an error, the full 200 claims. */
async function call(target: Target): Promise<{ result: unknown; bytes: number }> {
  const text = await post(target, BODY);
  const json = JSON.parse(text) as {
    result?: { isError?: boolean; structuredContent?: { data?: { claims?: unknown[] } } };
  };
  const claims = json.result?.structuredContent?.data?.claims;
  if (json.result?.isError || !Array.isArray(claims) || claims.length !== CLAIM_COUNT) {
    throw new Error(`${target.name}: expected ${CLAIM_COUNT} claims: ${text.slice(0, 300)}`);
  }
  return { result: json.result, bytes: Buffer.byteLength(text) };
}

async function main(): Promise<void> {
  const args = benchArgs();
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-mcp-'));
  try {
    const rounds = await withDeadline('bench:mcp', args, async (children) => {
      const providerChild = startChild('provider', [join(here, 'provider-server.ts'), '--audience', 'mcp'], {
        execArgv: providerExecArgv(args),
      });
      children.push(providerChild);
      const info = await providerChild.ready;
      const provider: Target = {
        name: 'provider',
        url: `${info['url']}/mcp`,
        headers: headers(info['token']),
      };
      // The bare server answers exactly what the provider answered.
      const payload = join(tmp, 'result.json');
      writeFileSync(payload, JSON.stringify((await call(provider)).result));
      const bareChild = startChild('bare-sdk', [join(here, 'mcp-baseline-server.ts'), payload]);
      children.push(bareChild);
      const bareInfo = await bareChild.ready;
      const bare: Target = { name: 'bare-sdk', url: `${bareInfo['url']}/mcp`, headers: headers() };
      const verify = async (t: Target) => (await call(t)).bytes;
      return measure('bench:mcp', args, { bodyFor, verify }, [provider, bare]);
    });

    console.log(roundsTable(rounds, args.cold, 'target: ratio >= 0.8'));
    writeResults('bench:mcp', args.cold ? 'mcp-cold.json' : 'mcp.json', {
      ...machine(),
      request: JSON.parse(BODY),
      protocolVersion: PROTOCOL_VERSION,
      ...settings(args),
      // mcp.json rows have never carried the mean latency or the timeouts (always 0: they fail the run).
      ...roundsRecord(rounds, ({ latencyMean, timeouts, ...row }) => row),
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (args.profiling) summarizeProfiles(resultsDir, 25);
}

runMain('bench:mcp', main);
