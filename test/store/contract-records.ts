import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import {
  at,
  confidentialClient,
  fullGrant,
  grant,
  publicClient,
  signingKey,
  subjectId,
  withStore,
} from '../support/store-records.ts';

/** Grants, clients, signing keys and settings. */
export function recordsContract(open: () => Promise<Store>): void {
  describe('grants', () => {
    it(
      'round-trips grants with and without optional fields',
      withStore(open, async (store) => {
        const bare = grant();
        const full = fullGrant();
        await store.insertGrant(bare);
        await store.insertGrant(full);
        const stored = await store.getGrant(bare.grant_id);
        assert.deepEqual(stored, bare);
        for (const field of ['expires_at', 'revoked_at', 'allowed_claim_keys', 'redisclosure', 'audit']) {
          assert.equal(field in (stored ?? {}), false, field);
        }
        assert.deepEqual(await store.getGrant(full.grant_id), full);
        assert.equal(await store.getGrant('ppx:grant:missing'), undefined);
      }),
    );

    it(
      'rejects a duplicate grant_id and keeps the first',
      withStore(open, async (store) => {
        const g = grant();
        await store.insertGrant(g);
        await assert.rejects(store.insertGrant({ ...g, grantee_id: 'client_other' }));
        assert.deepEqual(await store.getGrant(g.grant_id), g);
      }),
    );

    it(
      'returns an active grant past expires_at as stored (expiry is policy, not storage)',
      withStore(open, async (store) => {
        const g = grant({ granted_at: '2020-01-01T00:00:00.000Z', expires_at: '2020-02-01T00:00:00.000Z' });
        await store.insertGrant(g);
        assert.equal((await store.getGrant(g.grant_id))?.status, 'active');
      }),
    );

    it(
      'lists a subject’s grants newest granted_at first, ties by grant_id',
      withStore(open, async (store) => {
        const subject = subjectId();
        const g = (id: string, minutes: number) =>
          grant({ grant_id: `ppx:grant:${id}`, subject_id: subject, granted_at: at(minutes) });
        const expected = [g('c', 30), g('a', 20), g('b', 20), g('d', 10)];
        for (const x of [expected[3], expected[1], expected[0], expected[2]]) await store.insertGrant(x!);
        await store.insertGrant(grant({ granted_at: at(25) }));
        assert.deepEqual(await store.listGrantsBySubject(subject), expected);
        assert.deepEqual(await store.listGrantsBySubject('subj_missing'), []);
      }),
    );

    it(
      'revokeGrant marks the grant revoked, persists it, and keeps the first revoked_at',
      withStore(open, async (store) => {
        const g = fullGrant();
        await store.insertGrant(g);
        const revoked = await store.revokeGrant(g.grant_id, at(5));
        assert.deepEqual(revoked, { ...g, status: 'revoked', revoked_at: at(5) });
        assert.deepEqual(await store.getGrant(g.grant_id), revoked);
        const again = await store.revokeGrant(g.grant_id, at(9));
        assert.deepEqual(again, revoked);
        assert.deepEqual(await store.getGrant(g.grant_id), revoked);
        assert.deepEqual(await store.listGrantsBySubject(g.subject_id), [revoked]);
        assert.equal(await store.revokeGrant('ppx:grant:missing', at(5)), undefined);
      }),
    );
  });

  describe('clients and signing keys', () => {
    it(
      'round-trips public and confidential clients, upserts by client_id, lists by client_id',
      withStore(open, async (store) => {
        const pub = publicClient({ client_id: 'client_b' });
        const conf = confidentialClient({ client_id: 'client_a' });
        await store.putClient(pub);
        await store.putClient(conf);
        const stored = await store.getClient(pub.client_id);
        assert.deepEqual(stored, pub);
        assert.equal('secret_hash' in (stored ?? {}), false);
        assert.deepEqual(await store.listClients(), [conf, pub]);
        const renamed = { ...pub, name: 'Renamed', redirect_uris: [] };
        await store.putClient(renamed);
        assert.deepEqual(await store.getClient(pub.client_id), renamed);
        assert.deepEqual(await store.listClients(), [conf, renamed]);
        assert.equal(await store.getClient('client_missing'), undefined);
      }),
    );

    it(
      'lists no clients and no keys in an empty store',
      withStore(open, async (store) => {
        assert.deepEqual(await store.listClients(), []);
        assert.deepEqual(await store.listSigningKeys(), []);
      }),
    );

    it(
      'round-trips signing keys newest first and rejects a duplicate kid',
      withStore(open, async (store) => {
        const old = signingKey({ created_at: at(0) });
        const mid = signingKey({ created_at: at(10) });
        const fresh = signingKey({ created_at: at(20) });
        await store.insertSigningKey(mid);
        await store.insertSigningKey(fresh);
        await store.insertSigningKey(old);
        assert.deepEqual(await store.listSigningKeys(), [fresh, mid, old]);
        await assert.rejects(store.insertSigningKey({ ...old, alg: 'EdDSA' }));
        assert.deepEqual(await store.listSigningKeys(), [fresh, mid, old]);
      }),
    );
  });

  describe('settings', () => {
    it(
      'getSetting is undefined until putSettingIfAbsent stores a value, which then never changes',
      withStore(open, async (store) => {
        assert.equal(await store.getSetting('pairwise_secret'), undefined);
        assert.equal(await store.putSettingIfAbsent('pairwise_secret', 'first'), 'first');
        assert.equal(await store.putSettingIfAbsent('pairwise_secret', 'second'), 'first');
        assert.equal(await store.getSetting('pairwise_secret'), 'first');
        assert.equal(await store.putSettingIfAbsent('other', ''), '');
        assert.equal(await store.getSetting('other'), '');
      }),
    );

    it(
      'putSetting replaces a value; deleteSetting removes it once',
      withStore(open, async (store) => {
        await store.putSetting('sensitive_keys:p1', '["a"]');
        await store.putSetting('sensitive_keys:p1', '["b"]');
        assert.equal(await store.getSetting('sensitive_keys:p1'), '["b"]');
        assert.equal(await store.deleteSetting('sensitive_keys:p1'), true);
        assert.equal(await store.deleteSetting('sensitive_keys:p1'), false);
        assert.equal(await store.getSetting('sensitive_keys:p1'), undefined);
      }),
    );

    it(
      'concurrent putSettingIfAbsent calls all agree on one value',
      withStore(open, async (store) => {
        const values = ['v1', 'v2', 'v3', 'v4', 'v5'];
        const results = await Promise.all(values.map((v) => store.putSettingIfAbsent('signing_seed', v)));
        assert.equal(new Set(results).size, 1);
        assert.equal(await store.getSetting('signing_seed'), results[0]);
      }),
    );
  });
}
