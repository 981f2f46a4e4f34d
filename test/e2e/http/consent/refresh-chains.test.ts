import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chainToken, parseChainToken } from '../../../../src/auth/refresh-chain.ts';
import { randomToken, sha256 } from '../../../../src/auth/secrets.ts';
import {
  assertInvalidGrant,
  assertReuseRefused,
  granted,
  refresh,
  statusOf,
} from '../../../support/consent-flow.ts';
import { assertError } from '../../../support/http-api.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';

// Refresh tokens that name their family and generation (auth/refresh-chain.ts; docs/oauth.md,
// "Refresh tokens"), tried from outside: a token is only what its family's seed makes, so naming
// a family is not enough to spend, or to end, its access; a spent token of any age is a reuse; a
// family made before chains (its token kept as a row) moves onto a chain at its next rotation.

describe('refresh chains over HTTP', () => {
  let p: TestProvider;
  let description: string;

  before(async () => {
    p = await startTestProvider();
    description = (await refresh(p, 'not-a-refresh-token')).json.error_description;
  });
  after(() => p.close());

  /** A grant's family rotated `times` times: every token it was given, in order. */
  async function rotated(times: number) {
    const g = await granted(p);
    const tokens = [g.refresh!];
    for (let i = 0; i < times; i++) {
      const r = await refresh(p, tokens.at(-1)!);
      assert.equal(r.status, 200, r.text);
      tokens.push(r.json.refresh_token);
    }
    return { grantId: g.grantId, tokens };
  }

  it('each token names its family and the next generation', async () => {
    const { tokens } = await rotated(3);
    const named = tokens.map((t) => parseChainToken(t));
    const family = named[0]?.familyId;
    assert.ok(family?.startsWith('fam_'), tokens[0]);
    assert.deepEqual(
      named.map((n) => [n?.familyId, n?.generation]),
      tokens.map((_, i) => [family, i]),
    );
  });

  it('a forged token is unknown, whatever it names, and ends nothing: the family rotates on', async () => {
    const { grantId, tokens } = await rotated(2);
    const other = await rotated(0);
    const current = parseChainToken(tokens[2]!)!;
    const otherFamily = parseChainToken(other.tokens[0]!)!.familyId;
    const flip = (mac: string) => (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1);
    const forged = [
      // The current generation, a mac that is not the seed's.
      `${current.familyId}~2~${flip(current.mac)}`,
      // A spent generation with a made-up mac: not a reuse, since it was never given out.
      `${current.familyId}~0~${randomToken()}`,
      // A generation not reached yet.
      `${current.familyId}~3~${current.mac}`,
      // Another family's name on this token.
      `${otherFamily}~2~${current.mac}`,
      // A family that does not exist.
      `fam_${randomToken(16)}~0~${current.mac}`,
      // Made with a seed of the caller's choosing.
      chainToken(randomToken(), current.familyId, 3),
    ];
    for (const token of forged) assertInvalidGrant(await refresh(p, token), description);
    assert.equal(await statusOf(p, grantId), 'active');
    assert.equal(await statusOf(p, other.grantId), 'active');
    const next = await refresh(p, tokens[2]!);
    assert.equal(next.status, 200, `the family did not survive the forgeries: ${next.text}`);
    assert.equal((await refresh(p, other.tokens[0]!)).status, 200);
  });

  it('a spent token of any age is a reuse: the family and the grant end', async () => {
    const { grantId, tokens } = await rotated(5);
    assertReuseRefused(await refresh(p, tokens[1]!));
    assert.equal(await statusOf(p, grantId), 'revoked');
    assertError(await refresh(p, tokens[5]!), 410, 'grant_gone');
  });

  it('a family made before chains rotates its token kept as a row onto a chain; that token is then spent', async () => {
    const g = await granted(p);
    const family = await p.deps.store.getTokenFamily(parseChainToken(g.refresh!)!.familyId);
    assert.ok(family);
    // What a store written before chains holds: a family whose current token is a row.
    const before = { ...family, family_id: `fam_${randomToken(16)}` };
    const legacy = randomToken();
    await p.deps.store.transaction(async (tx) => {
      await tx.insertTokenFamily(before);
      await tx.insertRefreshToken({
        token_hash: sha256(legacy),
        family_id: before.family_id,
        status: 'current',
        issued_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      });
    });

    const first = await refresh(p, legacy);
    assert.equal(first.status, 200, first.text);
    const named = parseChainToken(first.json.refresh_token);
    assert.deepEqual([named?.familyId, named?.generation], [before.family_id, 0]);
    assert.equal((await p.deps.store.getRefreshToken(sha256(legacy)))?.status, 'rotated');
    const second = await refresh(p, first.json.refresh_token);
    assert.equal(second.status, 200, second.text);
    assert.equal(parseChainToken(second.json.refresh_token)?.generation, 1);

    assertReuseRefused(await refresh(p, legacy));
    assert.equal((await p.deps.store.getTokenFamily(before.family_id))?.status, 'revoked');
    assert.equal(await statusOf(p, g.grantId), 'revoked');
  });
});
