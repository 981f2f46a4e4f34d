import { parseArgs } from 'node:util';
import { dropSchemas, postgresUnreachable, schemaName, TEST_DATABASE_URL } from '../support/postgres.ts';
import { checkNotices, emptyNoticeStats, type NoticeStats } from './notices.ts';
import { checkRedaction, emptyStats, type Stats } from './redaction.ts';
import { type Pair, type StoreKind, startPair } from './world.ts';

// `npm run test:props`: the full run of the redaction property (redaction.ts) and of the
// change-notice property (notices.ts), 10,000 cases per store and property by default
// (`--property redaction|notices|both`). Prints its seed first, progress as it goes and a table
// at the end; a failure prints fast-check's shrunk counterexample with the seed and path that
// replay it:
//   npm run test:props -- --property redaction --store sqlite --seed S --path P

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    path: { type: 'string' },
    store: { type: 'string', default: 'both' },
    property: { type: 'string', default: 'both' },
  },
});
type Property = 'redaction' | 'notices';
const runs = Number(values.runs);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const stores: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];
const properties: Property[] =
  values.property === 'both' ? ['redaction', 'notices'] : [values.property as Property];
if (
  !Number.isInteger(runs) ||
  runs < 1 ||
  !Number.isInteger(seed) ||
  stores.some((s) => s !== 'sqlite' && s !== 'postgres') ||
  properties.some((p) => p !== 'redaction' && p !== 'notices')
) {
  console.error(
    'usage: npm run test:props -- [--runs N] [--seed S] [--path P] [--store sqlite|postgres|both] [--property redaction|notices|both]',
  );
  process.exit(2);
}

console.log(
  `${properties.join(' and ')} propert${properties.length > 1 ? 'ies' : 'y'}: ${runs} cases per store on ${stores.join(' and ')}, seed ${seed}`,
);

async function pairOn(store: StoreKind, schemas: string[]): Promise<Pair> {
  if (store === 'sqlite') return startPair();
  const unreachable = await postgresUnreachable();
  if (unreachable) throw new Error(unreachable);
  const names: [string, string] = [schemaName('props', schemas), schemaName('props', schemas)];
  return startPair({ postgres: { url: TEST_DATABASE_URL, schemas: names } });
}

const results: { store: StoreKind; stats: Stats; seconds: number; failed: boolean }[] = [];
const noticeResults: { store: StoreKind; stats: NoticeStats; seconds: number; failed: boolean }[] = [];
let failures = 0;
for (const store of properties.includes('redaction') ? stores : []) {
  const schemas: string[] = [];
  const pair = await pairOn(store, schemas);
  const stats = emptyStats();
  const started = performance.now();
  const every = Math.max(1, Math.floor(runs / 20));
  let failed = false;
  try {
    await checkRedaction(pair, {
      numRuns: runs,
      seed,
      ...(values.path !== undefined ? { path: values.path } : {}),
      stats,
      onCase: (s) => {
        if (s.cases % every === 0) {
          const t = ((performance.now() - started) / 1000).toFixed(0);
          console.log(`  ${store}: ${s.cases} cases, ${s.steps} calls, ${t} s`);
        }
      },
    });
  } catch (error) {
    failed = true;
    failures++;
    console.error(
      `\n${store}: the property FAILED\n${error instanceof Error ? error.message : String(error)}`,
    );
    console.error(
      `replay: npm run test:props -- --property redaction --store ${store} --seed ${seed} [--path from the report above]\n`,
    );
  } finally {
    await pair.close();
    await dropSchemas(schemas);
  }
  results.push({ store, stats, seconds: (performance.now() - started) / 1000, failed });
}

for (const store of properties.includes('notices') ? stores : []) {
  const schemas: string[] = [];
  const pair = await pairOn(store, schemas);
  const stats = emptyNoticeStats();
  const started = performance.now();
  const every = Math.max(1, Math.floor(runs / 20));
  let failed = false;
  try {
    await checkNotices(pair, {
      numRuns: runs,
      seed,
      ...(values.path !== undefined ? { path: values.path } : {}),
      stats,
      onCase: (s) => {
        if (s.cases % every === 0) {
          const t = ((performance.now() - started) / 1000).toFixed(0);
          console.log(`  notices ${store}: ${s.cases} cases, ${s.steps} steps, ${s.notices} notices, ${t} s`);
        }
      },
    });
  } catch (error) {
    failed = true;
    failures++;
    console.error(
      `\nnotices ${store}: the property FAILED\n${error instanceof Error ? error.message : String(error)}`,
    );
    console.error(
      `replay: npm run test:props -- --property notices --store ${store} --seed ${seed} [--path from the report above]\n`,
    );
  } finally {
    await pair.close();
    await dropSchemas(schemas);
  }
  noticeResults.push({ store, stats, seconds: (performance.now() - started) / 1000, failed });
}

const statuses = (s: Stats) =>
  Object.entries(s.byStatus)
    .sort()
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
const surfaces = (s: Stats) =>
  Object.entries(s.bySurface)
    .sort()
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
if (results.length > 0) {
  console.log(
    `\nredaction
store     result  cases  with hidden  hidden claims  calls  ${'by surface'.padEnd(44)}  ${'by status'.padEnd(46)}  seconds`,
  );
  for (const r of results) {
    const s = r.stats;
    console.log(
      [
        r.store.padEnd(8),
        (r.failed ? 'FAIL' : 'pass').padEnd(6),
        String(s.cases).padStart(5),
        String(s.withHidden).padStart(11),
        String(s.hiddenClaims).padStart(13),
        String(s.steps).padStart(6),
        surfaces(s).padEnd(44),
        statuses(s).padEnd(46),
        r.seconds.toFixed(0).padStart(7),
      ].join('  '),
    );
  }
}
if (noticeResults.length > 0) {
  console.log(
    `\nnotices
store     result  cases  refused  readable  proposals  steps  hidden-only  visible  no-op  ticks  notices  ended  seconds`,
  );
  for (const r of noticeResults) {
    const s = r.stats;
    console.log(
      [
        r.store.padEnd(8),
        (r.failed ? 'FAIL' : 'pass').padEnd(6),
        String(s.cases).padStart(5),
        String(s.refusedGrants).padStart(7),
        String(s.readable).padStart(8),
        String(s.proposals).padStart(9),
        String(s.steps).padStart(5),
        String(s.hiddenOnly).padStart(11),
        String(s.visible).padStart(7),
        String(s.noops).padStart(5),
        String(s.ticks).padStart(5),
        String(s.notices).padStart(7),
        String(s.ended).padStart(5),
        r.seconds.toFixed(0).padStart(7),
      ].join('  '),
    );
  }
}
console.log(`seed ${seed}`);
process.exit(failures > 0 ? 1 : 0);
