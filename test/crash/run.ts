import { parseArgs } from 'node:util';
import { postgresUnreachable } from '../support/postgres.ts';
import { crashRun, FULL_ROUND, type RoundReport } from './crash-run.ts';
import { KINDS } from './load.ts';
import type { StoreKind } from './stores.ts';

// `npm run test:crash`: the full crash run (docs/crash-safety.md). Per store, `--rounds` rounds
// of: seed, fire about 600 concurrent writes of the five kinds, SIGKILL the server once a random
// share of them has been acknowledged, restart it on the same database, check. Prints a line per
// round and a table per store; exits 1 if any check failed (each failure is printed).
//
//   node test/crash/run.ts [--rounds 20] [--store sqlite|postgres|both] [--seed N]

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    store: { type: 'string', default: 'both' },
    seed: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number, 1 or more');
if (!['sqlite', 'postgres', 'both'].includes(values.store))
  throw new Error('--store is sqlite, postgres or both');
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
const kinds: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];

const sum = (reports: readonly RoundReport[], pick: (r: RoundReport) => number) =>
  reports.reduce((n, r) => n + pick(r), 0);

/** Metric → store → figure: one column per store. */
const table: Record<string, Record<string, number | string>> = {};
const put = (kind: StoreKind, metric: string, value: number | string) => {
  table[metric] = { ...table[metric], [kind]: value };
};
const PLURAL: Record<(typeof KINDS)[number], string> = {
  proposal: 'proposals',
  confirmation: 'confirmations',
  refresh: 'refreshes',
  revocation: 'revocations',
  decision: 'consent decisions',
};
let failed = false;
console.log(`crash run: ${rounds} rounds per store, seed ${seed}`);
for (const kind of kinds) {
  if (kind === 'postgres') {
    const why = await postgresUnreachable();
    if (why !== false) {
      console.log(`postgres: skipped, ${why}`);
      put(kind, 'rounds', 'skipped');
      continue;
    }
  }
  const started = performance.now();
  const reports = await crashRun(kind, {
    rounds,
    size: FULL_ROUND,
    seed,
    onRound: (r) => {
      const failures = r.checks.failures;
      console.log(
        `${kind} round ${r.round}: fired ${r.fired}, acknowledged ${r.acked}, in flight at the kill ${r.inFlightAtKill}, ` +
          `cut off but committed ${r.checks.committedUnanswered}, checks ${r.checks.passed} passed, ${failures.length} failed ` +
          `(seed ${Math.round(r.ms.seed)} ms, load ${Math.round(r.ms.load)} ms, restart ${Math.round(r.ms.restart)} ms, check ${Math.round(r.ms.check)} ms)`,
      );
      for (const f of failures) console.log(`  FAILED ${f}`);
      if (failures.length > 0) failed = true;
    },
  });
  const total = (pick: (r: RoundReport) => number) => sum(reports, pick);
  const figures: [string, number][] = [
    ['rounds', reports.length],
    ['operations fired', total((r) => r.fired)],
    ['acknowledged', total((r) => r.acked)],
    ...KINDS.map((k): [string, number] => [`  ${PLURAL[k]}`, total((r) => r.ackedByKind[k])]),
    ['in flight at the kill', total((r) => r.inFlightAtKill)],
    ['cut off but committed', total((r) => r.checks.committedUnanswered)],
    ['checks passed', total((r) => r.checks.passed)],
    ['checks failed', total((r) => r.checks.failures.length)],
  ];
  for (const [metric, value] of figures) put(kind, metric, value);
  put(kind, 'seconds', Math.round((performance.now() - started) / 100) / 10);
}
console.table(table);
process.exit(failed ? 1 : 0);
