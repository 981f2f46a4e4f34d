import { after, before, describe, it } from 'node:test';
import { dropSchemas, postgresUnreachable, schemaName, TEST_DATABASE_URL } from '../support/postgres.ts';
import { skipWhen } from '../support/skip.ts';
import { checkNotices } from './notices.ts';
import { type Pair, startPair } from './world.ts';

// The quick, seeded runs of the change-notice property (notices.ts) in `npm test`, on both
// stores; the full run is `npm run test:props -- --property notices` (test/props/run.ts).
// PPX_PROPS_SEED replays another seed.

const SEED = Number(process.env['PPX_PROPS_SEED'] ?? 20261202);

describe('change-notice property on SQLite (seeded quick run)', () => {
  let pair: Pair;
  before(async () => {
    pair = await startPair();
  });
  after(() => pair.close());

  it(`holds on 40 random profiles, grants and change sequences (seed ${SEED})`, async () => {
    await checkNotices(pair, { numRuns: 40, seed: SEED });
  });
});

const unreachable = await postgresUnreachable();
describe('change-notice property on PostgreSQL (seeded quick run)', skipWhen(unreachable), () => {
  const schemas: string[] = [];
  let pair: Pair;
  before(async () => {
    const names: [string, string] = [schemaName('props', schemas), schemaName('props', schemas)];
    pair = await startPair({ postgres: { url: TEST_DATABASE_URL, schemas: names } });
  });
  after(async () => {
    await pair?.close();
    await dropSchemas(schemas);
  });

  it(`holds on 15 random cases (seed ${SEED + 1})`, async () => {
    await checkNotices(pair, { numRuns: 15, seed: SEED + 1 });
  });
});
