import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Profile } from '../../../src/model/profile.ts';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { mintPackage } from '../../../src/operations/consent/package-tokens.ts';
import { exportProfile } from '../../../src/operations/export-import/export-profile.ts';
import { importProfile } from '../../../src/operations/export-import/import-profile.ts';
import { createGrant } from '../../../src/operations/grants/consent-grants.ts';
import { demoProfile } from '../../../src/operations/seed/demo-profile.ts';
import { cleanEnv, runCli, show } from '../../support/cli.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { type Watch, watch } from './helpers.ts';

// What the CLI commands write (import, subject add, mint, client add), called in-process on the
// running provider's Deps as the commands call them; and a CLI process writing the same database,
// whose events the server's subscribers get: on SQLite once the server writes next (docs/store.md,
// "The cross-process limit of SQLite"), on PostgreSQL through LISTEN/NOTIFY, in order either way.

/** The demo profile for another subject, with ids of its own. */
function otherProfile(p: TestProvider, subjectId: string, suffix: string): Profile {
  const demo = demoProfile(new Date());
  return {
    ...demo,
    provider_id: p.deps.provider.providerId,
    subject_id: subjectId,
    profile_id: `ppx:profile:${suffix}`,
    claims: (demo.claims ?? []).map((c) => ({ ...c, claim_id: `${c.claim_id}-${suffix}` })),
    context_modifiers: (demo.context_modifiers ?? []).map((m) => ({
      ...m,
      modifier_id: `${m.modifier_id}-${suffix}`,
    })),
  };
}

describe('change events of CLI-level operations', () => {
  let p: TestProvider;
  let w: Watch;
  before(async () => {
    p = await startTestProvider();
    w = await watch(p);
  });
  after(async () => {
    w.close();
    await p.close();
  });

  it('import: profile_imported with every claim id; a conflict or a bad file nothing', async () => {
    const doc = otherProfile(p, 'did:example:imported', 'imp');
    const r = await importProfile(p.deps, doc);
    assert.ok(r.ok);
    const claimIds = (doc.claims ?? []).map((c) => c.claim_id);
    await w.expect({
      kind: 'profile_imported',
      subject: 'did:example:imported',
      ids: { claim_ids: claimIds, namespaces: ['core', 'fragrance', 'travel'] },
      grants: [],
    });
    const conflict = await importProfile(p.deps, doc);
    assert.equal(conflict.ok ? 'ok' : conflict.error.code, 'conflict');
    const bad = await importProfile(p.deps, { ...doc, claims: [{ claim_id: 'x' }] }, { replace: true });
    assert.equal(bad.ok ? 'ok' : bad.error.code, 'invalid_request');
    // A claim id already used by another profile: the transaction rolls back.
    const taken = await importProfile(p.deps, {
      ...otherProfile(p, 'did:example:taken', 'tk'),
      claims: doc.claims,
    });
    assert.equal(taken.ok ? 'ok' : taken.error.code, 'conflict');
    await w.quiet();
  });

  it('import over an exported profile restores its grants: grant_created each, then profile_imported', async () => {
    const g = await p.grant();
    await w.expect({ kind: 'grant_created' });
    const exported = await exportProfile(p.deps, { kind: 'subject', subjectId: p.subjectId });
    assert.ok(exported.ok);
    // Grant ids are never reused: restore it under an id that is free, as from another store.
    const doc: Profile = {
      ...exported.value,
      consent_grants: (exported.value.consent_grants ?? [])
        .filter((x) => x.grant_id === g.grant.grant_id)
        .map((x) => ({ ...x, grant_id: 'ppx:grant:restored-by-import' })),
    };
    const r = await importProfile(p.deps, doc, { replace: true });
    assert.ok(r.ok && r.value.restored_grants === 1, JSON.stringify(r));
    await w.expect(
      {
        kind: 'grant_created',
        ids: { grant_ids: ['ppx:grant:restored-by-import'] },
        grants: ['ppx:grant:restored-by-import'],
      },
      {
        kind: 'profile_imported',
        ids: { grant_ids: ['ppx:grant:restored-by-import'] },
        grantsInclude: [g.grant.grant_id, 'ppx:grant:restored-by-import'],
      },
    );
  });

  it('subject add: profile_created; client add nothing', async () => {
    const r = await createSubject(p.deps, { username: 'cli-user', password: 'cli-password-1' });
    assert.ok(r.ok);
    await w.expect({ kind: 'profile_created', subject: r.value.subject_id, ids: {}, grants: [] });
    const again = await createSubject(p.deps, { username: 'cli-user', password: 'cli-password-1' });
    assert.equal(again.ok, false);
    assert.ok((await registerClient(p.deps, { client_id: 'cli-client', name: 'CLI client' })).ok);
    await w.quiet();
  });

  it('mint: grant_created; a grant for an unknown client nothing; a single-use package child narrowed', async () => {
    const draft = {
      subject_id: p.subjectId,
      client_id: 'fragrance-demo',
      purposes: ['recommendation' as const],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core'],
      allowed_operations: ['read' as const],
      access_mode: 'single_use' as const,
    };
    const minted = await createGrant(p.deps, draft, 'operator');
    assert.ok(minted.ok);
    const id = minted.value.grant_id;
    await w.expect({ kind: 'grant_created', ids: { grant_ids: [id] }, grants: [id] });
    assert.equal((await createGrant(p.deps, { ...draft, client_id: 'nobody' }, 'operator')).ok, false);
    await w.quiet();
    const pkg = await mintPackage(p.deps, [id]);
    assert.ok(pkg.ok);
    await w.expect({ kind: 'grant_narrowed', ids: { grant_ids: [id] }, grants: [id] });
  });

  it('a CLI process writing the same database: its events reach the subscriber, in order, when the server writes next', async () => {
    const file = join(p.database.dir, 'cli-import.json');
    writeFileSync(file, JSON.stringify(otherProfile(p, 'did:example:from-cli', 'cli')));
    const cli = await runCli(['import', file, ...p.database.cliArgs], cleanEnv());
    assert.equal(cli.code, 0, show(cli));
    const [fromCli] = await p.store.listChanges({ after: w.from, limit: 10 });
    assert.equal(fromCli?.kind, 'profile_imported');
    assert.equal(fromCli?.subject_id, 'did:example:from-cli');
    const r = await api(p.url, '/v1/profile/sensitive-keys', {
      token: p.subjectToken,
      body: { sensitive_keys: [] },
    });
    assert.equal(r.status, 200, r.text);
    const [gapFilled] = await w.expect(
      { kind: 'profile_imported', subject: 'did:example:from-cli' },
      { kind: 'sensitive_keys_changed' },
    );
    assert.deepEqual(gapFilled, fromCli);
  });
});
