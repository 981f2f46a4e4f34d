import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importProfile } from '../../../../src/operations/export-import/import-profile.ts';
import { assertError, keysOf } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { auditActions, proposalsOf, propose, proposed, WRITE_GRANT } from '../../../support/writeback.ts';

// Deletion (SPEC §10 MUST 6) and the export -> delete -> import round trip.

describe('deletion and the export round trip', () => {
  let p: TestProvider;
  let reader: { token: string };
  before(async () => {
    p = await startTestProvider();
    reader = await p.grant({
      allowed_namespaces: ['core', 'fragrance', 'travel'],
      allowed_domains: ['fragrance', 'travel'],
      allowed_operations: ['read', 'query', 'export'],
      cross_domain_transfer: 'allow',
    });
  });
  after(() => p.close());

  const exportAs = async (token: string) => {
    const r = await api(p.url, '/v1/export', { token, body: {} });
    assert.equal(r.status, 200, r.text);
    return r.json;
  };

  it('deletes one claim: gone from reads and exports, history and audit recorded', async () => {
    const r = await api(p.url, '/v1/profile/claims/ppx:claim:demo-core-risk', {
      method: 'DELETE',
      token: p.subjectToken,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.deleted_claim_ids, ['ppx:claim:demo-core-risk']);
    const read = await api(p.url, '/v1/profile/effective', { token: reader.token, body: {} });
    assert.ok(!keysOf(read.json).includes('risk_tolerance'));
    assert.ok(!keysOf(await exportAs(p.subjectToken)).includes('risk_tolerance'));
    assert.ok(!keysOf(await exportAs(reader.token)).includes('risk_tolerance'));
    const h = await api(p.url, '/v1/profile/history?claim_id=ppx:claim:demo-core-risk', {
      token: p.subjectToken,
    });
    assert.deepEqual(h.json.entries.at(-1).claim, null);
    assert.equal(h.json.entries.at(-1).change, 'deleted');
    assert.ok((await auditActions(p, 'claim_deleted')).some((e) => e.claim_keys.includes('risk_tolerance')));
    assertError(
      await api(p.url, '/v1/profile/claims/ppx:claim:demo-core-risk', {
        method: 'DELETE',
        token: p.subjectToken,
      }),
      404,
      'not_found',
    );
  });

  it('only the subject deletes', async () => {
    assertError(
      await api(p.url, '/v1/profile/claims/ppx:claim:demo-core-budget', {
        method: 'DELETE',
        token: reader.token,
      }),
      403,
      'access_denied',
    );
    assertError(
      await api(p.url, '/v1/profile', { method: 'DELETE', token: reader.token }),
      403,
      'access_denied',
    );
  });

  it('deletes a namespace: its claims and modifiers, and closes pending proposals in it', async () => {
    const writer = await p.grant({
      ...WRITE_GRANT,
      allowed_namespaces: ['travel'],
      allowed_domains: ['travel'],
    });
    const queued = await propose(p, writer.token, [proposed('travel', 'pace_preference', 0.2)]);
    assert.equal(queued.status, 202, queued.text);
    assertError(
      await api(p.url, '/v1/profile/namespaces/weather', { method: 'DELETE', token: p.subjectToken }),
      400,
      'unknown_namespace',
    );
    const r = await api(p.url, '/v1/profile/namespaces/travel', { method: 'DELETE', token: p.subjectToken });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.deleted_claim_ids.length, 6);
    assert.deepEqual(r.json.closed_proposal_ids, [queued.json.proposals[0].proposal_id]);
    const doc = await exportAs(p.subjectToken);
    assert.ok(keysOf(doc).every((k) => !k.startsWith('travel.')));
    assert.ok(doc.context_modifiers.every((m: { namespace: string }) => m.namespace !== 'travel'));
    const read = await api(p.url, '/v1/profile/query', { token: reader.token, body: {} });
    assert.ok(keysOf(read.json).every((k) => !k.startsWith('travel.')));
    assert.ok((await auditActions(p, 'claim_deleted')).some((e) => e.detail === 'namespace travel'));
  });

  it('export -> delete the profile -> import restores it exactly', async () => {
    const before_ = await exportAs(p.subjectToken);
    assert.ok(before_.consent_grants.length >= 2);
    const del = await api(p.url, '/v1/profile', { method: 'DELETE', token: p.subjectToken });
    assert.equal(del.status, 200, del.text);
    assert.equal(del.json.profile_deleted, true);
    // No grant reads it, no export contains it; the grants stay as evidence.
    const read = await api(p.url, '/v1/profile/query', { token: reader.token, body: {} });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json.claims, []);
    assertError(await api(p.url, '/v1/export', { token: p.subjectToken, body: {} }), 404, 'not_found');
    assertError(await api(p.url, '/v1/export', { token: reader.token, body: {} }), 404, 'not_found');
    assert.equal((await p.deps.store.listGrantsBySubject(p.subjectId)).length, before_.consent_grants.length);
    assert.ok((await auditActions(p, 'profile_deleted')).length === 1);

    // Seeding the demo profile was an import too, so only the entries added by this one count.
    const importsBefore = await auditActions(p, 'import');
    const imported = await importProfile(p.deps, before_);
    assert.ok(imported.ok, JSON.stringify(imported));
    const importsAfter = await auditActions(p, 'import');
    assert.equal(importsAfter.length, importsBefore.length + 1);
    // The restore is the operator's act, under no grant; like export and deletion, it names the
    // claims it wrote.
    const entry = importsAfter.at(-1)!;
    assert.deepEqual(entry.actor, { kind: 'operator', id: 'operator' });
    assert.equal(entry.grant_id, undefined);
    assert.deepEqual([...entry.claim_keys].sort(), keysOf(before_));
    assert.ok(entry.claim_keys.length > 0);
    assert.deepEqual(await exportAs(p.subjectToken), before_);
    assert.deepEqual(await proposalsOf(p), []);
  });

  it('importing into a fresh provider restores the grants issued here, with their status', async () => {
    const doc = await exportAs(p.subjectToken);
    const revoked = doc.consent_grants[0].grant_id;
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: revoked } });
    const withRevoked = await exportAs(p.subjectToken);
    const fresh = await startTestProvider();
    try {
      const profile = await fresh.deps.store.getProfileBySubject(fresh.subjectId);
      await fresh.store.deleteProfile(profile!.profile_id);
      const foreign = {
        ...withRevoked.consent_grants[1],
        grant_id: 'ppx:grant:foreign',
        grantee_id: 'not-registered',
      };
      const r = await importProfile(fresh.deps, {
        ...withRevoked,
        consent_grants: [...withRevoked.consent_grants, foreign],
      });
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.value.restored_grants, withRevoked.consent_grants.length);
      assert.equal(r.value.skipped_grants, 1);
      const again = await api(fresh.url, '/v1/export', { token: fresh.subjectToken, body: {} });
      assert.deepEqual(again.json, withRevoked);
    } finally {
      await fresh.close();
    }
  });
});
