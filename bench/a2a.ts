import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { a2aBodyFor, a2aCall, a2aHeaders } from './a2a-requests.ts';
import { startChild } from './children.ts';
import { BENCH_CONTEXT, CLAIM_COUNT } from './fixtures.ts';
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
import { summarizeProfiles } from './profile-summary.ts';
import { roundsRecord, roundsTable } from './rounds.ts';

// `npm run bench:a2a [-- --rounds 3 --duration 10 --connections 50 --warmup 2 --cold]`
// A2A 1.0 `SendMessage` of the `get_effective_profile` skill: the provider's /a2a (bearer token
// for `${url}/a2a`, auth, grant re-read, policy, store, resolution, audit, the task saved in the
// provider's store) side by side with a bare @a2a-js/sdk server answering the same completed task
// (bench/a2a-baseline-server.ts), in the same run, the order alternating round by round, with the
// same autocannon load. Target (issue 13): at least 0.8× the bare server's throughput. Writes
// bench/results/a2a.json.

const here = import.meta.dirname;
const bodyFor = a2aBodyFor;
const headers = a2aHeaders;

/** One call, checked: a completed task whose artifact holds the full 200 claims. */
async function call(target: Target): Promise<{ task: unknown; bytes: number }> {
  return a2aCall(target, bodyFor(BENCH_CONTEXT), CLAIM_COUNT);
}

async function main(): Promise<void> {
  const args = benchArgs();
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-a2a-'));
  try {
    const rounds = await withDeadline('bench:a2a', args, async (children) => {
      const providerChild = startChild('provider', [join(here, 'provider-server.ts'), '--audience', 'a2a'], {
        execArgv: providerExecArgv(args),
      });
      children.push(providerChild);
      const info = await providerChild.ready;
      const provider: Target = {
        name: 'provider',
        url: `${info['url']}/a2a`,
        headers: headers(info['token']),
        pid: providerChild.proc.pid,
      };
      // The bare server answers exactly the task the provider answered.
      const payload = join(tmp, 'task.json');
      writeFileSync(payload, JSON.stringify((await call(provider)).task));
      const bareChild = startChild('bare-sdk', [join(here, 'a2a-baseline-server.ts'), payload]);
      children.push(bareChild);
      const bareInfo = await bareChild.ready;
      const bare: Target = {
        name: 'bare-sdk',
        url: `${bareInfo['url']}/a2a`,
        headers: headers(),
        pid: bareChild.proc.pid,
      };
      const verify = async (t: Target) => (await call(t)).bytes;
      return measure('bench:a2a', args, { bodyFor, verify }, [provider, bare]);
    });

    console.log(roundsTable(rounds, args.cold, 'target: ratio >= 0.8'));
    writeResults('bench:a2a', args.cold ? 'a2a-cold.json' : 'a2a.json', {
      ...machine(),
      request: JSON.parse(bodyFor(BENCH_CONTEXT)),
      ...settings(args),
      ...roundsRecord(rounds, ({ latencyMean, timeouts, ...row }) => row),
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (args.profiling) summarizeProfiles(resultsDir, 25);
}

runMain('bench:a2a', main);
