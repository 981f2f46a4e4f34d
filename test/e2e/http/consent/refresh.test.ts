import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testClock } from '../../../support/clock.ts';
import {
  assertInvalidGrant,
  assertReuseRefused,
  granted,
  readEffective,
  refresh,
  statusOf,
} from '../../../support/consent-flow.ts';
import { assertError, assertInvalidTokenChallenge } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// POST /v1/consent/refresh (WIRE-NOTES §2.4): rotation; a spent (rotated) token presented again
// is theft (the family and the grant die), however close in time, a concurrent race included
// (issue 22 item 13); a revoked grant is 410 Gone, saying who ended the access (item 16).

describe('consent refresh over HTTP', () => {
  let p: TestProvider;
  let description: string;

  before(async () => {
    p = await startTestProvider();
    const r = await refresh(p, 'not-a-refresh-token');
    assertInvalidGrant(r);
    description = r.json.error_description;
  });
  after(() => p.close());

  /** A grant with its tokens rotated once: `stale` is the rotated refresh token. */
  async function rotatedOnce() {
    const g = await granted(p);
    const f = await refresh(p, g.refresh!);
    assert.equal(f.status, 200, f.text);
    return {
      grantId: g.grantId,
      stale: g.refresh!,
      current: f.json.refresh_token as string,
      access: f.json.access_token as string,
      firstAccess: g.access,
    };
  }

  it('rotation chains: each refresh token works once, the next one works', async () => {
    const g = await granted(p);
    let token = g.refresh!;
    const seen = new Set([token]);
    for (let i = 0; i < 3; i++) {
      const f = await refresh(p, token);
      assert.equal(f.status, 200, f.text);
      assert.ok(!seen.has(f.json.refresh_token), 'a refresh token came back twice');
      seen.add(f.json.refresh_token);
      token = f.json.refresh_token;
      assert.equal((await readEffective(p, f.json.access_token)).status, 200);
    }
  });

  it('a replayed (rotated) refresh token: invalid_grant, the family dies and the grant is revoked', async () => {
    const t = await rotatedOnce();
    assert.equal(
      (await readEffective(p, t.access)).status,
      200,
      'control: the grant works before the replay',
    );

    assertReuseRefused(await refresh(p, t.stale));

    // the current refresh token dies with its family; the grant is now revoked, hence 410
    const current = await refresh(p, t.current);
    assert.notEqual(current.status, 200, `the family survived the replay: ${current.text}`);
    assertError(current, 410, 'grant_gone');
    assert.match(current.json.error_description, /refresh tokens was presented twice/);
    // every access token of the grant is refused on its next request
    assertInvalidTokenChallenge(await readEffective(p, t.access), 'grant_revoked');
    assertInvalidTokenChallenge(await readEffective(p, t.firstAccess), 'grant_revoked');
    assert.equal(await statusOf(p, t.grantId), 'revoked');
    // and it stays dead: a spent token is always the same refusal
    assertReuseRefused(await refresh(p, t.stale));
  });

  it('refresh after the subject revoked the grant is 410 grant_gone', async () => {
    const g = await granted(p);
    const r = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: g.grantId },
    });
    assert.equal(r.status, 200, r.text);
    const f = await refresh(p, g.refresh!);
    assertError(f, 410, 'grant_gone');
    assert.equal(
      f.json.error_description,
      'the person ended this access; ask the person to grant access again',
    );
    assert.equal(f.headers.get('cache-control'), 'no-store');
    assertError(await refresh(p, g.refresh!), 410, 'grant_gone');
    assertInvalidTokenChallenge(await readEffective(p, g.access), 'grant_revoked');
  });

  it('another client_id is invalid_grant, and does not kill the family', async () => {
    const g = await granted(p);
    assertInvalidGrant(await refresh(p, g.refresh!, 'travel-demo'), description);
    assertInvalidGrant(await refresh(p, g.refresh!, 'no-such-client'), description);
    const f = await refresh(p, g.refresh!);
    assert.equal(f.status, 200, `a foreign client's attempt damaged the family: ${f.text}`);
    assert.equal(await statusOf(p, g.grantId), 'active');
  });

  it('an access token, a request token or garbage presented as a refresh token is invalid_grant', async () => {
    const g = await granted(p);
    for (const wrong of [g.access, g.pending.requestToken, `${g.refresh}x`, 'x'.repeat(43)]) {
      assertInvalidGrant(await refresh(p, wrong), description);
    }
    assert.equal((await refresh(p, g.refresh!)).status, 200);
  });

  describe('malformed bodies answer the same invalid_grant, naming no field', () => {
    const cases: [string, (rt: string) => unknown][] = [
      ['a missing client_id', (rt) => ({ refresh_token: rt })],
      ['a missing refresh_token', () => ({ client_id: 'fragrance-demo' })],
      [
        'an extra field',
        (rt) => ({ client_id: 'fragrance-demo', refresh_token: rt, grant_type: 'refresh_token' }),
      ],
      ['a number for a string', () => ({ client_id: 'fragrance-demo', refresh_token: 1 })],
      ['an empty object', () => ({})],
      ['malformed JSON', (rt) => `{"client_id":"fragrance-demo","refresh_token":"${rt}"`],
    ];
    for (const [name, bodyOf] of cases) {
      it(name, async () => {
        const g = await granted(p);
        const r = await api(p.url, '/v1/consent/refresh', { body: bodyOf(g.refresh!) });
        assertInvalidGrant(r, description);
        assert.ok(
          !/client_id|refresh_token|grant_type|JSON|expected|required/i.test(r.json.error_description),
        );
        assert.equal((await refresh(p, g.refresh!)).status, 200, 'the refused body damaged the family');
      });
    }
  });

  it('concurrent refreshes of one token: exactly one 200, every other one a reuse that ends the family', async () => {
    // Decided by the compare-and-set, not by timing: a loser finds the token spent whether it read
    // it before or after the winner's commit (issue 22 item 13; two instances: instances/refresh-races).
    for (let round = 0; round < 10; round++) {
      const g = await granted(p);
      const results = await Promise.all(Array.from({ length: 10 }, () => refresh(p, g.refresh!)));
      const winners = results.filter((r) => r.status === 200);
      assert.equal(winners.length, 1, `round ${round}: ${results.map((r) => r.text).join(' | ')}`);
      for (const r of results.filter((x) => x.status !== 200)) assertReuseRefused(r);
      const next = await refresh(p, winners[0]!.json.refresh_token);
      assertError(next, 410, 'grant_gone');
      assertInvalidTokenChallenge(await readEffective(p, winners[0]!.json.access_token), 'grant_revoked');
      assert.equal(await statusOf(p, g.grantId), 'revoked');
    }
  });

  it('a refresh after the client gave up its own grant says the app ended it', async () => {
    const g = await granted(p);
    const r = await api(p.url, '/v1/consent/revoke', { token: g.access, body: { grant_id: g.grantId } });
    assert.equal(r.status, 200, r.text);
    const f = await refresh(p, g.refresh!);
    assertError(f, 410, 'grant_gone');
    assert.equal(
      f.json.error_description,
      'this app ended this access itself; ask the person to grant access again',
    );
  });

  it('a refresh that arrives after its token was rotated counts as a replay, however close in time', async () => {
    // RFC 9700 §4.14.2: the server cannot tell a late duplicate from a thief, so the family dies
    // and the grant is revoked; clients refresh one at a time (the MCP SDK does).
    const g = await granted(p);
    const first = await refresh(p, g.refresh!);
    assert.equal(first.status, 200);
    assertReuseRefused(await refresh(p, g.refresh!));
    assert.equal((await refresh(p, first.json.refresh_token)).status, 410);
    assert.equal(await statusOf(p, g.grantId), 'revoked');
  });
});

describe('consent refresh after the grant expired', () => {
  const clock = testClock();
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider({ clock: clock.clock });
  });
  after(() => p.close());

  it('says the access expired, in words', async () => {
    const g = await granted(p, {}, { expires_at: new Date(clock.now() + 3_600_000).toISOString() });
    clock.advance(2 * 3_600_000);
    const f = await refresh(p, g.refresh!);
    assertInvalidGrant(f, 'this access has expired; ask the person to grant access again');
  });
});
