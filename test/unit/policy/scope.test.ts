import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateAccess } from '../../../src/policy/scope.ts';
import { assertDenied, assertOk, EXPIRES, grant, NOW } from '../../support/policy-fixtures.ts';

// Each negative case breaks exactly one thing of an otherwise valid request.

const sorted = (s: ReadonlySet<string> | undefined) => (s === undefined ? undefined : [...s].sort());

describe('evaluateAccess: grant status', () => {
  it('a valid read under an active grant yields the full grant scope', () => {
    const g = grant();
    const scope = assertOk(evaluateAccess(g, { operation: 'read' }, NOW));
    assert.equal(scope.grant, g);
    assert.deepEqual(sorted(scope.namespaces), ['core', 'fragrance']);
    assert.equal(scope.keys, undefined);
    assert.deepEqual(scope.useDomains, ['fragrance']);
    assert.equal(scope.crossDomain, 'deny');
  });

  it('revoked grant: grant_revoked', () => {
    const r = evaluateAccess(grant({ status: 'revoked' }), { operation: 'read' }, NOW);
    assertDenied(r, 'grant_revoked');
    assert.equal(r.ok ? '' : r.error.grantId, 'ppx:grant:test-1');
  });

  it('exactly at expires_at: grant_expired', () => {
    assertDenied(evaluateAccess(grant(), { operation: 'read' }, new Date(EXPIRES)), 'grant_expired');
  });

  it('1 ms before expires_at: ok', () => {
    const before = new Date(Date.parse(EXPIRES) - 1);
    assertOk(evaluateAccess(grant(), { operation: 'read' }, before));
  });

  it('stored status expired: grant_expired', () => {
    assertDenied(evaluateAccess(grant({ status: 'expired' }), { operation: 'read' }, NOW), 'grant_expired');
  });

  it('pending grant: invalid_token (a pending request carries no authority)', () => {
    assertDenied(evaluateAccess(grant({ status: 'pending' }), { operation: 'read' }, NOW), 'invalid_token');
  });

  it('revocation wins over expiry', () => {
    const after = new Date(Date.parse(EXPIRES) + 1000);
    assertDenied(evaluateAccess(grant({ status: 'revoked' }), { operation: 'read' }, after), 'grant_revoked');
  });
});

describe('evaluateAccess: operations and purposes', () => {
  it('operation not allowed: insufficient_scope', () => {
    const r = evaluateAccess(grant(), { operation: 'propose_update' }, NOW);
    assertDenied(r, 'insufficient_scope');
    assert.deepEqual(r.ok ? undefined : r.error.details, {
      required_operation: 'propose_update',
      allowed_operations: ['read'],
    });
  });

  it('export is not implied by read', () => {
    assertDenied(evaluateAccess(grant(), { operation: 'export' }, NOW), 'insufficient_scope');
  });

  it('query is permitted by a read grant when the endpoint says so', () => {
    assertOk(evaluateAccess(grant(), { operation: 'query', alsoPermittedBy: ['read'] }, NOW));
  });

  it('query without alsoPermittedBy under a read-only grant: insufficient_scope', () => {
    assertDenied(evaluateAccess(grant(), { operation: 'query' }, NOW), 'insufficient_scope');
  });

  it('query granted directly is ok', () => {
    assertOk(evaluateAccess(grant({ allowed_operations: ['query'] }), { operation: 'query' }, NOW));
  });

  it('read is not permitted by a query-only grant', () => {
    const g = grant({ allowed_operations: ['query'] });
    assertDenied(evaluateAccess(g, { operation: 'read' }, NOW), 'insufficient_scope');
  });

  it('purpose inside the grant: ok', () => {
    assertOk(evaluateAccess(grant(), { operation: 'read', purpose: 'ranking' }, NOW));
  });

  it('purpose outside the grant: insufficient_scope', () => {
    const r = evaluateAccess(grant(), { operation: 'read', purpose: 'matching' }, NOW);
    assertDenied(r, 'insufficient_scope');
    assert.deepEqual(r.ok ? undefined : r.error.details, { purposes: ['recommendation', 'ranking'] });
  });
});

describe('evaluateAccess: namespaces', () => {
  it('requested namespaces narrow the scope', () => {
    const scope = assertOk(evaluateAccess(grant(), { operation: 'read', namespaces: ['fragrance'] }, NOW));
    assert.deepEqual(sorted(scope.namespaces), ['fragrance']);
  });

  it('requesting exactly the granted namespaces keeps them', () => {
    const scope = assertOk(
      evaluateAccess(grant(), { operation: 'read', namespaces: ['fragrance', 'core'] }, NOW),
    );
    assert.deepEqual(sorted(scope.namespaces), ['core', 'fragrance']);
  });

  it('an empty request list narrows to nothing', () => {
    const scope = assertOk(evaluateAccess(grant(), { operation: 'read', namespaces: [] }, NOW));
    assert.deepEqual(sorted(scope.namespaces), []);
  });

  it('widening to a supported namespace outside the grant: insufficient_scope', () => {
    const r = evaluateAccess(grant(), { operation: 'read', namespaces: ['core', 'travel'] }, NOW);
    assertDenied(r, 'insufficient_scope');
  });

  it('unknown namespace: unknown_namespace', () => {
    const r = evaluateAccess(grant(), { operation: 'read', namespaces: ['weather'] }, NOW);
    assertDenied(r, 'unknown_namespace');
  });
});

describe('evaluateAccess: claim keys', () => {
  const keyed = grant({ allowed_claim_keys: ['novelty_tolerance', 'fragrance.family_preference'] });

  it('without requested keys the grant keys are the scope keys', () => {
    const scope = assertOk(evaluateAccess(keyed, { operation: 'read' }, NOW));
    assert.deepEqual(sorted(scope.keys), ['fragrance.family_preference', 'novelty_tolerance']);
  });

  it('a requested key inside allowed_claim_keys narrows to it', () => {
    const scope = assertOk(evaluateAccess(keyed, { operation: 'read', keys: ['novelty_tolerance'] }, NOW));
    assert.deepEqual(sorted(scope.keys), ['novelty_tolerance']);
  });

  it('`core.` prefix in the request is normalized to the unprefixed core key', () => {
    const r = evaluateAccess(keyed, { operation: 'read', keys: ['core.novelty_tolerance'] }, NOW);
    assert.deepEqual(sorted(assertOk(r).keys), ['novelty_tolerance']);
  });

  it('`core.` prefix in the grant is normalized too', () => {
    const g = grant({ allowed_claim_keys: ['core.novelty_tolerance'] });
    assert.deepEqual(sorted(assertOk(evaluateAccess(g, { operation: 'read' }, NOW)).keys), [
      'novelty_tolerance',
    ]);
    const r = evaluateAccess(g, { operation: 'read', keys: ['novelty_tolerance'] }, NOW);
    assert.deepEqual(sorted(assertOk(r).keys), ['novelty_tolerance']);
  });

  it('a domain key is requested as `fragrance.x`', () => {
    const r = evaluateAccess(keyed, { operation: 'read', keys: ['fragrance.family_preference'] }, NOW);
    assert.deepEqual(sorted(assertOk(r).keys), ['fragrance.family_preference']);
  });

  it('a domain key requested unprefixed is a core key, outside allowed_claim_keys', () => {
    const r = evaluateAccess(keyed, { operation: 'read', keys: ['family_preference'] }, NOW);
    assertDenied(r, 'insufficient_scope');
  });

  it('a key outside allowed_claim_keys in a granted namespace: insufficient_scope', () => {
    const r = evaluateAccess(keyed, { operation: 'read', keys: ['risk_tolerance'] }, NOW);
    assertDenied(r, 'insufficient_scope');
  });

  it('a domain key outside allowed_claim_keys: insufficient_scope', () => {
    const r = evaluateAccess(keyed, { operation: 'read', keys: ['fragrance.intensity_preference'] }, NOW);
    assertDenied(r, 'insufficient_scope');
  });

  it('one bad key among good ones refuses the whole request', () => {
    const r = evaluateAccess(
      keyed,
      { operation: 'read', keys: ['novelty_tolerance', 'risk_tolerance'] },
      NOW,
    );
    assertDenied(r, 'insufficient_scope');
  });

  it('without allowed_claim_keys any key of a granted namespace narrows', () => {
    const r = evaluateAccess(grant(), { operation: 'read', keys: ['fragrance.note_aversions'] }, NOW);
    assert.deepEqual(sorted(assertOk(r).keys), ['fragrance.note_aversions']);
  });

  it('a key of a supported namespace outside the grant: insufficient_scope', () => {
    const r = evaluateAccess(grant(), { operation: 'read', keys: ['travel.pace_preference'] }, NOW);
    assertDenied(r, 'insufficient_scope');
  });

  it('an empty allowed_claim_keys grants no key at all', () => {
    const g = grant({ allowed_claim_keys: [] });
    assert.deepEqual(sorted(assertOk(evaluateAccess(g, { operation: 'read' }, NOW)).keys), []);
    assertDenied(
      evaluateAccess(g, { operation: 'read', keys: ['novelty_tolerance'] }, NOW),
      'insufficient_scope',
    );
  });

  it('a key of an unknown namespace: unknown_namespace', () => {
    const r = evaluateAccess(grant(), { operation: 'read', keys: ['weather.rain_tolerance'] }, NOW);
    assertDenied(r, 'unknown_namespace');
  });
});

describe('evaluateAccess: domains', () => {
  it('requested domain inside the grant becomes the only use domain', () => {
    const g = grant({ allowed_domains: ['fragrance', 'travel'] });
    const scope = assertOk(evaluateAccess(g, { operation: 'read', domain: 'travel' }, NOW));
    assert.deepEqual(scope.useDomains, ['travel']);
  });

  it('without a requested domain every granted domain is a use domain', () => {
    const g = grant({ allowed_domains: ['fragrance', 'travel'] });
    assert.deepEqual(assertOk(evaluateAccess(g, { operation: 'read' }, NOW)).useDomains, [
      'fragrance',
      'travel',
    ]);
  });

  it('requested domain outside the grant: cross_domain_denied', () => {
    const r = evaluateAccess(grant(), { operation: 'read', domain: 'travel' }, NOW);
    assertDenied(r, 'cross_domain_denied');
    assert.deepEqual(r.ok ? undefined : r.error.details, { allowed_domains: ['fragrance'] });
  });

  it('requested domain outside the grant is denied even when cross_domain_transfer is allow', () => {
    const r = evaluateAccess(
      grant({ cross_domain_transfer: 'allow' }),
      { operation: 'read', domain: 'media' },
      NOW,
    );
    assertDenied(r, 'cross_domain_denied');
  });
});
