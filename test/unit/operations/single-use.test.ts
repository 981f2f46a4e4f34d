import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGrant } from '../../../src/operations/grants/consent-grants.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { evaluateAccess } from '../../../src/policy/scope.ts';
import { assertDenied, assertOk, grant, NOW } from '../../support/policy-fixtures.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// One-time grants for matching (SPEC §13.3 step 5): they end with the session and never export.

describe('evaluateAccess: single_use grants never export (SPEC §13.3)', () => {
  it('export under a single_use grant that lists export: insufficient_scope, naming the rule', () => {
    const g = grant({ access_mode: 'single_use', allowed_operations: ['read', 'export'] });
    const r = evaluateAccess(g, { operation: 'export' }, NOW);
    assertDenied(r, 'insufficient_scope');
    assert.match(r.ok ? '' : r.error.description, /single_use.*SPEC §13\.3/);
    assert.deepEqual(r.ok ? undefined : r.error.details, { access_mode: 'single_use' });
  });

  it('the same grant, continuous, may export', () => {
    const g = grant({ access_mode: 'continuous', allowed_operations: ['read', 'export'] });
    assertOk(evaluateAccess(g, { operation: 'export' }, NOW));
  });

  it('a single_use grant still reads and queries within its scope', () => {
    const g = grant({ access_mode: 'single_use', allowed_operations: ['read', 'export'] });
    assertOk(evaluateAccess(g, { operation: 'read' }, NOW));
    assertOk(evaluateAccess(g, { operation: 'query', alsoPermittedBy: ['read'] }, NOW));
  });
});

describe('createGrant: a single_use draft cannot list export', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const draft = {
    subject_id: DEMO_SUBJECT,
    client_id: 'fragrance-demo',
    purposes: ['matching' as const],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core'],
  };

  it('400 invalid_request, and no grant is stored', async () => {
    const before = (await p.deps.store.listGrantsBySubject(DEMO_SUBJECT)).length;
    const r = await createGrant(
      p.deps,
      { ...draft, allowed_operations: ['read', 'export'], access_mode: 'single_use' },
      'operator',
    );
    assertDenied(r, 'invalid_request');
    assert.match(r.ok ? '' : r.error.description, /single_use grant cannot allow export/);
    assert.equal((await p.deps.store.listGrantsBySubject(DEMO_SUBJECT)).length, before);
  });

  it('single_use without export, and continuous with export, are created', async () => {
    const once = assertOk(
      await createGrant(
        p.deps,
        { ...draft, allowed_operations: ['read'], access_mode: 'single_use' },
        'operator',
      ),
    );
    assert.equal(once.access_mode, 'single_use');
    const export_ = assertOk(
      await createGrant(p.deps, { ...draft, allowed_operations: ['read', 'export'] }, 'operator'),
    );
    assert.equal(export_.access_mode, 'continuous');
  });
});
