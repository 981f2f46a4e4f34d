import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decidePackage,
  exchangeCode,
  FRAGRANCE,
  outcomeGrants,
  outcomePpxGrants,
  packageSuite,
  packageTokens,
  payload,
  refresh,
  subjectGrants,
  TRAVEL,
} from '../../../support/grant-packages.ts';
import { api, type TestProvider } from '../../../support/provider.ts';

// What happens to a package after its code: replays, withdrawing children, refresh rotation,
// single-use children (WIRE-NOTES §4).

describe('grant packages: code, refresh family and children', () => {
  let p: TestProvider;
  let cookie: string;
  let client: string;
  packageSuite((s) => ({ p, cookie, client } = s));

  const revoke = (grantId: string) =>
    api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: grantId } });

  async function statuses(ids: readonly string[]): Promise<(string | undefined)[]> {
    const grants = await subjectGrants(p);
    return ids.map((id) => grants.get(id)?.status);
  }

  it('a package code presented again is invalid_grant and revokes every child grant', async () => {
    const decided = await decidePackage(p, cookie, client);
    const code = decided.back.searchParams.get('code')!;
    const first = await exchangeCode(p, client, code, decided.verifier);
    assert.equal(first.status, 200, first.text);
    const ids = outcomePpxGrants(first.json);
    assert.equal(ids.length, 2);
    const again = await exchangeCode(p, client, code, decided.verifier);
    assert.equal(again.status, 400, again.text);
    assert.equal(again.json.error, 'invalid_grant');
    assert.deepEqual(await statuses(ids), ['revoked', 'revoked']);
    const refreshed = await refresh(p, client, first.json.refresh_token);
    assert.equal(refreshed.status, 400, refreshed.text);
    assert.equal(refreshed.json.error, 'invalid_grant');
  });

  it('withdrawing one child leaves the other and the family; withdrawing both ends refresh', async () => {
    const { tokens } = await packageTokens(p, cookie, client);
    const [fragranceId, travelId] = outcomePpxGrants(tokens);
    const r1 = await revoke(travelId!);
    assert.equal(r1.status, 200, r1.text);
    assert.deepEqual(await statuses([fragranceId!, travelId!]), ['active', 'revoked']);

    const refreshed = await refresh(p, client, tokens.refresh_token);
    assert.equal(refreshed.status, 200, refreshed.text);
    const claims = payload(refreshed.json.access_token);
    assert.equal(claims.ppx_kind, 'package');
    assert.deepEqual([...claims.grant_ids].sort(), [fragranceId, travelId].sort(), 'still names every child');
    assert.ok(refreshed.json.refresh_token && refreshed.json.refresh_token !== tokens.refresh_token);

    const r2 = await revoke(fragranceId!);
    assert.equal(r2.status, 200, r2.text);
    const ended = await refresh(p, client, refreshed.json.refresh_token);
    assert.equal(ended.status, 400, ended.text);
    assert.equal(ended.json.error, 'invalid_grant');
  });

  it('a rotated refresh token presented again kills the family and revokes every child', async () => {
    const { tokens } = await packageTokens(p, cookie, client);
    const ids = outcomePpxGrants(tokens);
    const rotated = await refresh(p, client, tokens.refresh_token);
    assert.equal(rotated.status, 200, rotated.text);
    const replay = await refresh(p, client, tokens.refresh_token);
    assert.equal(replay.status, 400, replay.text);
    assert.equal(replay.json.error, 'invalid_grant');
    const successor = await refresh(p, client, rotated.json.refresh_token);
    assert.equal(successor.status, 400, 'the whole family is dead, its newest token too');
    assert.equal(successor.json.error, 'invalid_grant');
    assert.deepEqual(await statuses(ids), ['revoked', 'revoked']);
  });

  it('a single-use child is consumed by the first token: its grant ends when that token does', async () => {
    const once = { ...TRAVEL, access_mode: 'single_use' };
    const { tokens } = await packageTokens(p, cookie, client, [FRAGRANCE, once]);
    assert.ok(tokens.refresh_token, 'the continuous child keeps a refresh family');
    const [fragranceId, travelId] = outcomePpxGrants(tokens);
    const exp = payload(tokens.access_token).exp * 1000;
    assert.ok(Math.abs(Date.now() + tokens.expires_in * 1000 - exp) < 5000, 'expires_in agrees with exp');
    const grants = await subjectGrants(p);
    const consumed = Date.parse(grants.get(travelId!)!.expires_at!);
    assert.ok(Math.abs(consumed - exp) <= 1000, `single-use child expires ${consumed}, token ${exp}`);
    const continuing = Date.parse(grants.get(fragranceId!)!.expires_at!);
    assert.ok(continuing - Date.now() > 29 * 86_400_000, 'the continuous child keeps its 30 days');
  });

  it('a package whose children are all single-use gets no refresh token', async () => {
    const details = [FRAGRANCE, TRAVEL].map((d) => ({ ...d, access_mode: 'single_use' }));
    const { tokens } = await packageTokens(p, cookie, client, details);
    assert.equal(payload(tokens.access_token).ppx_kind, 'package');
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(outcomeGrants(tokens).length, 2);
  });
});
