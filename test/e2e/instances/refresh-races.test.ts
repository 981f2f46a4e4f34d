import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertReuseRefused, granted, readEffective, refresh, statusOf } from '../../support/consent-flow.ts';
import { assertInvalidTokenChallenge } from '../../support/http-api.ts';
import { dropSchemas, postgresUnreachable, schemaName, TEST_DATABASE_URL } from '../../support/postgres.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';

// Presenting a spent refresh token ends its family, deterministically (issue 22 item 13; PPX
// consent-v2, RFC 9700 §4.14.2): ten refreshes of one token at once, spread over the instances,
// give exactly one new token pair, nine refusals, and a dead family and grant — every round, on
// one SQLite instance and on two instances sharing one PostgreSQL database. Before the fix, a
// loser that read the token before the winner's commit lost the compare-and-set quietly, and in
// some rounds the winner's new token kept working.

const ROUNDS = 50;
const AT_ONCE = 10;

/** One race over `instances` (taken in turn), and every check of its outcome. */
async function race(instances: readonly TestProvider[], round: number): Promise<void> {
  const [first] = instances;
  assert.ok(first);
  const g = await granted(first);
  assert.ok(g.refresh);
  const answers = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) => refresh(instances[i % instances.length]!, g.refresh!)),
  );
  const winners = answers.filter((r) => r.status === 200);
  const said = () => answers.map((r) => `${r.status} ${r.text.slice(0, 90)}`).join('\n');
  assert.equal(winners.length, 1, `round ${round}: ${said()}`);
  for (const r of answers.filter((x) => x.status !== 200)) assertReuseRefused(r);
  const won = winners[0]!.json;
  // The winner's new tokens died with the family, on every instance.
  for (const p of instances) {
    assert.equal((await refresh(p, won.refresh_token)).status, 410, `round ${round}: the family lived on`);
    assertInvalidTokenChallenge(await readEffective(p, won.access_token), 'grant_revoked');
  }
  assert.equal(await statusOf(first, g.grantId), 'revoked');
}

describe('refresh races on one SQLite instance', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it(`${ROUNDS} races of ${AT_ONCE} refreshes: one winner, and the family always ends`, async () => {
    for (let round = 0; round < ROUNDS; round++) await race([p], round);
  });
});

const reason = await postgresUnreachable();

describe('refresh races over two instances on one PostgreSQL database', skipWhen(reason), () => {
  const schemas: string[] = [];
  const schema = schemaName('races', schemas);
  let a: TestProvider;
  let b: TestProvider;
  before(async () => {
    const shared = {
      postgres: { url: TEST_DATABASE_URL, schema },
      env: { PPX_BASE_URL: 'http://ppx.races.test' },
    };
    a = await startTestProvider(shared);
    b = await startTestProvider(shared);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await dropSchemas(schemas);
  });

  it(`${ROUNDS} races of ${AT_ONCE} refreshes spread over both: one winner, and the family always ends`, async () => {
    for (let round = 0; round < ROUNDS; round++) await race([a, b], round);
  });
});
