import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './children.ts';
import {
  benchArgs,
  machine,
  measure,
  providerExecArgv,
  resultsDir,
  runMain,
  settings,
  type Target,
  withDeadline,
  writeResults,
} from './harness.ts';
import { BODY, bodyFor, call, headers, PROTOCOL_VERSION } from './mcp-requests.ts';
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
