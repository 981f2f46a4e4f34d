import { join } from 'node:path';
import { startChild } from './children.ts';
import { BENCH_BODY, BENCH_PATH, CLAIM_COUNT } from './fixtures.ts';
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
  table,
  throughputRatio,
  withDeadline,
  writeResults,
} from './harness.ts';
import { summarizeProfiles } from './profile-summary.ts';

// `npm run bench [-- --duration 10 --connections 50 --warmup 2 --cold]`
// Starts the provider and the bare baseline as child processes, checks both answer correctly,
// then loads each in turn (never both at once: the machine has 2 cores) with autocannon and
// prints/saves the comparison. BENCH_PROFILE=1 runs the provider child under --cpu-prof and
// prints its hottest functions afterwards. --cold gives every request a context of its own, so
// the provider can reuse nothing between requests (results in latest-cold.json).

const here = import.meta.dirname;

/** One request, checked: 200, JSON, the full 200 claims. Returns the response size in bytes. */
async function verify(target: Target): Promise<number> {
  const text = await post(target, BENCH_BODY);
  const json = JSON.parse(text) as { claims?: unknown[]; applied_modifiers?: unknown[] };
  if (!Array.isArray(json.claims) || json.claims.length !== CLAIM_COUNT) {
    throw new Error(`${target.name}: expected ${CLAIM_COUNT} claims, got ${json.claims?.length ?? 'none'}`);
  }
  if (!Array.isArray(json.applied_modifiers) || json.applied_modifiers.length === 0) {
    throw new Error(`${target.name}: expected some applied modifiers for the bench context`);
  }
  return Buffer.byteLength(text);
}

async function main(): Promise<void> {
  const args = benchArgs();
  const rows = await withDeadline('bench', args, async (children) => {
    children.push(
      startChild('provider', [join(here, 'provider-server.ts')], { execArgv: providerExecArgv(args) }),
      startChild('baseline', [join(here, 'baseline-server.ts')]),
    );
    const [providerInfo, baselineInfo] = await Promise.all(children.map((c) => c.ready));
    const json = { 'content-type': 'application/json' };
    const targets: Target[] = [
      {
        name: 'provider',
        url: providerInfo!['url'] + BENCH_PATH,
        headers: { ...json, authorization: `Bearer ${providerInfo!['token']}` },
      },
      { name: 'baseline', url: baselineInfo!['url'] + BENCH_PATH, headers: json },
    ];
    return measure('bench', args, { bodyFor: (context) => JSON.stringify({ context }), verify }, targets);
  });

  const ratio = throughputRatio(rows);
  const percent = `${(ratio * 100).toFixed(1)} %`;
  console.log(table(rows, `throughput ratio provider/baseline: ${ratio.toFixed(3)} (${percent})`, args.cold));
  writeResults('bench', args.cold ? 'latest-cold.json' : 'latest.json', {
    ...machine(),
    path: BENCH_PATH,
    body: JSON.parse(BENCH_BODY),
    ...settings(args),
    results: rows,
    throughputRatio: ratio,
  });
  if (args.profiling) summarizeProfiles(resultsDir, 25);
}

runMain('bench', main);
