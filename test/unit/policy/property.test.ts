import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Claim, claimShape, normalizeKey, qualifiedKey } from '../../../src/model/claim.ts';
import type { GrantRecord } from '../../../src/model/grant-record.ts';
import type { CrossDomainTransfer, Operation, Purpose } from '../../../src/model/vocabulary.ts';
import { grantStatusAt } from '../../../src/policy/grant-status.ts';
import { type AccessRequest, evaluateAccess, grantScope } from '../../../src/policy/scope.ts';
import { homeDomains, isClaimVisible, visibleClaims } from '../../../src/policy/visibility.ts';
import { claim, grant, NOW, pick, prng, subset } from '../../support/policy-fixtures.ts';

// Randomized, seeded: for random grants, requests and claims, nothing outside the grant or the
// requested narrowing is ever visible, and only an active grant ever evaluates to ok.

const SEED = 0x5eed_2026;
const CASES = 300;
const DAY = 86_400_000;

const NAMESPACES = ['core', 'fragrance', 'travel'] as const;
const KEYS: Record<(typeof NAMESPACES)[number], string[]> = {
  core: ['novelty_tolerance', 'risk_tolerance', 'budget_sensitivity'],
  fragrance: ['family_preference', 'intensity_preference'],
  travel: ['pace_preference', 'accommodation_style'],
};
const QUALIFIED = NAMESPACES.flatMap((ns) => KEYS[ns].map((k) => (ns === 'core' ? k : `${ns}.${k}`)));
/** Request keys include `core.` prefixed forms, unprefixed domain keys and unknown namespaces. */
const KEY_SPELLINGS = [...QUALIFIED, 'core.novelty_tolerance', 'core.risk_tolerance', 'family_preference'];
const DOMAINS = ['fragrance', 'travel', 'media'];
const OPS: Operation[] = ['read', 'query', 'propose_update', 'confirm_update', 'export'];
const PURPOSES: Purpose[] = ['recommendation', 'ranking', 'matching', 'explanation'];
const CROSS: CrossDomainTransfer[] = ['deny', 'allow_with_review', 'allow_if_same_provider', 'allow'];
const KINDS = ['user_stated', 'observed', 'imported', 'inferred', 'derived_aggregate'] as const;
const REVIEW = [undefined, 'unreviewed', 'pending_confirmation', 'confirmed', 'rejected'] as const;

const nsOf = (k: string) => (k.includes('.') ? k.split('.')[0]! : 'core');

function randomGrant(rand: () => number, i: number): GrantRecord {
  const namespaces: string[] = subset(rand, NAMESPACES)!;
  const inScope = QUALIFIED.filter((k) => namespaces.includes(nsOf(k)));
  const keys = rand() < 0.5 ? undefined : subset(rand, inScope);
  const expiresIn = pick(rand, [-DAY, -1, 0, 1, DAY, 30 * DAY, 30 * DAY, 30 * DAY, 30 * DAY]);
  return grant({
    grant_id: `ppx:grant:p${i}`,
    status: pick(rand, [
      'active',
      'active',
      'active',
      'active',
      'active',
      'revoked',
      'pending',
      'expired',
    ] as const),
    expires_at: rand() < 0.1 ? undefined : new Date(NOW.getTime() + expiresIn).toISOString(),
    purposes: subset(rand, PURPOSES)!,
    allowed_domains: subset(rand, DOMAINS)!,
    allowed_namespaces: [...namespaces],
    ...(keys && { allowed_claim_keys: keys.map((k) => (k.includes('.') || rand() < 0.7 ? k : `core.${k}`)) }),
    allowed_operations: rand() < 0.8 ? ['read', ...subset(rand, OPS)!] : subset(rand, OPS)!,
    cross_domain_transfer: pick(rand, CROSS),
  });
}

/** Requests mostly stay inside the grant (so scopes get built); some stray outside on purpose. */
function randomRequest(rand: () => number, g: GrantRecord): AccessRequest {
  const operation = pick(rand, ['read', 'query'] as const);
  const nsPool = rand() < 0.7 ? g.allowed_namespaces : [...NAMESPACES, ...(rand() < 0.1 ? ['weather'] : [])];
  const namespaces = subset(rand, nsPool, 0.5);
  const inGrant = g.allowed_claim_keys ?? QUALIFIED.filter((k) => g.allowed_namespaces.includes(nsOf(k)));
  const keyPool = rand() < 0.7 && inGrant.length > 0 ? inGrant : [...KEY_SPELLINGS, 'weather.rain'];
  const keys = subset(rand, keyPool, 0.6);
  return {
    operation,
    ...(operation === 'query' && rand() < 0.7 && { alsoPermittedBy: ['read'] as const }),
    ...(rand() < 0.4 && { purpose: pick(rand, PURPOSES) }),
    ...(namespaces && { namespaces }),
    ...(keys && { keys }),
    ...(rand() < 0.4 && { domain: pick(rand, rand() < 0.7 ? g.allowed_domains : DOMAINS) }),
  };
}

function randomClaim(rand: () => number, i: number): Claim {
  const namespace = pick(rand, NAMESPACES);
  const review = pick(rand, REVIEW);
  const domains = rand() < 0.5 ? undefined : (subset(rand, DOMAINS, 0.1) ?? []);
  return claim({
    claim_id: `ppx:claim:p${i}`,
    namespace,
    key: pick(rand, KEYS[namespace]),
    source: { kind: pick(rand, KINDS) },
    ...(domains && { applicability: { domains } }),
    ...(review && { review: { review_status: review } }),
  });
}

describe('policy property (seeded)', () => {
  const rand = prng(SEED);
  let okCount = 0;
  let visibleCount = 0;
  let deniedNonActive = 0;

  it(`${CASES} random grant/request/claim sets never leak outside the grant or the narrowing`, () => {
    for (let n = 0; n < CASES; n++) {
      const g = randomGrant(rand, n);
      const req = randomRequest(rand, g);
      const claims = Array.from({ length: 12 }, (_, i) => randomClaim(rand, n * 100 + i));
      const ctx = `case ${n}: grant=${JSON.stringify(g)} request=${JSON.stringify(req)}`;
      const r = evaluateAccess(g, req, NOW);
      if (grantStatusAt(g, NOW) !== 'active') {
        assert.equal(r.ok, false, `non-active grant evaluated ok; ${ctx}`);
        deniedNonActive++;
        continue;
      }
      if (!r.ok) continue;
      okCount++;
      const scope = r.value;
      const grantKeys = g.allowed_claim_keys?.map(normalizeKey);
      const reqKeys = req.keys?.map(normalizeKey);
      for (const ns of scope.namespaces)
        assert.ok(g.allowed_namespaces.includes(ns), `scope ns ${ns}; ${ctx}`);
      if (grantKeys)
        for (const k of scope.keys ?? []) assert.ok(grantKeys.includes(k), `scope key ${k}; ${ctx}`);
      if (grantKeys) assert.notEqual(scope.keys, undefined, `grant keys lost; ${ctx}`);
      for (const d of scope.useDomains) assert.ok(g.allowed_domains.includes(d), `use domain ${d}; ${ctx}`);

      // The store keeps change times per claim shape (migration 0010): the shape alone must decide
      // visibility, as the claim does; and the grant's whole scope sees whatever a request sees.
      const whole = grantScope(g);
      for (const c of claims) {
        assert.equal(
          isClaimVisible(scope, claimShape(c)),
          isClaimVisible(scope, c),
          `shape of ${c.claim_id}; ${ctx}`,
        );
        if (isClaimVisible(scope, c))
          assert.ok(isClaimVisible(whole, c), `grantScope hides ${c.claim_id}; ${ctx}`);
      }
      for (const c of visibleClaims(scope, claims)) {
        visibleCount++;
        const key = qualifiedKey(c);
        const where = `claim ${c.claim_id} ${c.namespace}/${c.key}; ${ctx}`;
        assert.ok(g.allowed_namespaces.includes(c.namespace), `namespace outside grant: ${where}`);
        if (grantKeys) assert.ok(grantKeys.includes(key), `key outside allowed_claim_keys: ${where}`);
        if (req.namespaces)
          assert.ok(req.namespaces.includes(c.namespace), `namespace outside request: ${where}`);
        if (reqKeys) assert.ok(reqKeys.includes(key), `key outside request: ${where}`);
        assert.notEqual(c.review?.review_status, 'rejected', `rejected claim visible: ${where}`);
        const home = homeDomains(c);
        const useDomains = req.domain ? [req.domain] : g.allowed_domains;
        const crosses = home !== 'any' && !home.some((d) => useDomains.includes(d));
        if (crosses) {
          assert.ok(
            g.cross_domain_transfer === 'allow' ||
              (g.cross_domain_transfer === 'allow_if_same_provider' && c.source.kind !== 'imported'),
            `cross-domain claim visible under ${g.cross_domain_transfer}: ${where}`,
          );
        }
      }
    }
  });

  it('the generator exercised every branch', () => {
    // Guards against a generator that silently stops producing interesting cases.
    assert.ok(okCount >= 60, `only ${okCount} ok evaluations`);
    assert.ok(visibleCount >= 150, `only ${visibleCount} visible claims`);
    assert.ok(deniedNonActive >= 50, `only ${deniedNonActive} non-active grants`);
  });
});
