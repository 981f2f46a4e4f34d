import { SCALE_DEFAULTS, seedScale } from '../operations/seed/scale-seed.ts';
import { COMMON_OPTIONS, configFrom, parse, usage } from './args.ts';
import { withProvider } from './open-provider.ts';
import { progressBar } from './progress-bar.ts';

// `ppx seed --scale N`: N generated subjects in one process (operations/seed/scale-seed.ts), with a
// progress bar on stderr, for the scale benchmark (npm run bench:scale) and anyone sizing a
// deployment. Seeding again with `--from-subject` grows the same store.

export const SCALE_HELP = `ppx seed --scale N [--claims-per-subject 200] [--grants-per-subject 20]
               [--audit-per-subject 200] [--from-subject 0] [--db PATH]
  N generated subjects (did:example:scale-0000000…), each with its claims, grants to a pool of
  50 apps, and a history of reads in the audit log; seeded in one process, with a progress bar.`;

const SCALE_OPTIONS = {
  scale: { type: 'string' },
  'claims-per-subject': { type: 'string' },
  'grants-per-subject': { type: 'string' },
  'audit-per-subject': { type: 'string' },
  'from-subject': { type: 'string' },
} as const;

function count(value: string | undefined, fallback: number, what: string, min = 0): number | string {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > 100_000_000)
    return `${what} must be a whole number from ${min}, not "${value}"`;
  return n;
}

export async function seedScaleCommand(argv: string[]): Promise<number> {
  const args = parse(argv, { ...COMMON_OPTIONS, ...SCALE_OPTIONS });
  if (!args.ok) return usage('seed', SCALE_HELP, args.message);
  const v = args.value.values;
  const numbers = {
    subjects: count(v.scale, 0, '--scale', 1),
    claimsPerSubject: count(
      v['claims-per-subject'],
      SCALE_DEFAULTS.claimsPerSubject,
      '--claims-per-subject',
      1,
    ),
    grantsPerSubject: count(v['grants-per-subject'], SCALE_DEFAULTS.grantsPerSubject, '--grants-per-subject'),
    auditPerSubject: count(v['audit-per-subject'], SCALE_DEFAULTS.auditPerSubject, '--audit-per-subject'),
    firstSubject: count(v['from-subject'], 0, '--from-subject'),
  };
  const problem = Object.values(numbers).find((n) => typeof n === 'string');
  if (problem !== undefined) return usage('seed', SCALE_HELP, problem as string);
  const plan = numbers as { [K in keyof typeof numbers]: number };
  const config = configFrom(v);
  if (typeof config === 'string') return usage('seed', SCALE_HELP, config);
  return withProvider(
    'seed',
    config,
    async (deps) => {
      const bar = progressBar(plan.subjects, 'subjects');
      const report = await seedScale(deps, plan, bar.update);
      bar.done();
      console.log(
        `seeded ${report.subjects} subjects: ${report.claims} claims, ${report.grants} grants, ` +
          `${report.auditEvents} audit events in ${report.seconds.toFixed(1)} s`,
      );
      return 0;
    },
    { mayCreate: true },
  );
}
