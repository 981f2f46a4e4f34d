import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GrantRequestDraft } from '../../../src/model/grant-request.ts';
import { allowedNarrowings, narrowDraft } from '../../../src/policy/narrowing.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const DRAFT: GrantRequestDraft = {
  purposes: ['recommendation', 'ranking'],
  allowed_domains: ['fragrance', 'travel'],
  allowed_namespaces: ['core', 'fragrance'],
  allowed_operations: ['read', 'query'],
  cross_domain_transfer: 'allow_with_review',
  writeback_policy: 'auto_for_low_risk',
  expires_at: '2026-07-01T00:00:00.000Z',
  access_mode: 'continuous',
};

function refused(narrow: Parameters<typeof narrowDraft>[1], pattern: RegExp, draft = DRAFT) {
  const r = narrowDraft(draft, narrow, NOW);
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.error.code, 'invalid_request');
    assert.match(r.error.description, pattern);
  }
}

describe('narrowing a consent request (WIRE-NOTES §2.2)', () => {
  it('no narrowing keeps the request as asked', () => {
    assert.deepEqual(narrowDraft(DRAFT, {}, NOW), { ok: true, value: DRAFT });
  });

  it('removes items from every list', () => {
    const r = narrowDraft(
      DRAFT,
      {
        purposes: ['ranking'],
        allowed_domains: ['fragrance'],
        allowed_namespaces: ['core'],
        allowed_operations: ['read'],
      },
      NOW,
    );
    assert.ok(r.ok);
    assert.deepEqual(r.value.purposes, ['ranking']);
    assert.deepEqual(r.value.allowed_domains, ['fragrance']);
    assert.deepEqual(r.value.allowed_namespaces, ['core']);
    assert.deepEqual(r.value.allowed_operations, ['read']);
  });

  it('refuses an item that was not requested, in each list', () => {
    refused({ purposes: ['matching'] }, /purposes: "matching" was not requested/);
    refused({ allowed_domains: ['media'] }, /allowed_domains: "media"/);
    refused({ allowed_namespaces: ['travel'] }, /allowed_namespaces: "travel"/);
    refused({ allowed_operations: ['export'] }, /allowed_operations: "export"/);
  });

  it('refuses emptying a list (that is a rejection)', () => {
    refused({ purposes: [] }, /keep at least one/);
  });

  it('keys shrink with the namespaces, and a request without keys may gain a key list inside them', () => {
    const withKeys = { ...DRAFT, allowed_claim_keys: ['novelty_tolerance', 'fragrance.family_preference'] };
    const dropped = narrowDraft(withKeys, { allowed_namespaces: ['core'] }, NOW);
    assert.ok(dropped.ok);
    assert.deepEqual(dropped.value.allowed_claim_keys, ['novelty_tolerance']);

    const gained = narrowDraft(DRAFT, { allowed_claim_keys: ['core.novelty_tolerance'] }, NOW);
    assert.ok(gained.ok);
    assert.deepEqual(gained.value.allowed_claim_keys, ['novelty_tolerance']);

    refused({ allowed_claim_keys: ['travel.pace_preference'] }, /was not requested/);
    refused({ allowed_claim_keys: ['fragrance.family_preference'] }, /was not requested/, {
      ...DRAFT,
      allowed_claim_keys: ['novelty_tolerance'],
    });
  });

  it('policies may only become stricter', () => {
    const stricter = narrowDraft(
      DRAFT,
      { cross_domain_transfer: 'deny', writeback_policy: 'forbidden' },
      NOW,
    );
    assert.ok(stricter.ok);
    assert.equal(stricter.value.cross_domain_transfer, 'deny');
    assert.equal(stricter.value.writeback_policy, 'forbidden');
    refused({ cross_domain_transfer: 'allow' }, /looser/);
    refused({ writeback_policy: 'allow' }, /looser/);
  });

  it('the expiry may only move earlier, and stay in the future', () => {
    const shorter = narrowDraft(DRAFT, { expires_at: '2026-06-15T00:00:00Z' }, NOW);
    assert.ok(shorter.ok);
    assert.equal(shorter.value.expires_at, '2026-06-15T00:00:00.000Z');
    refused({ expires_at: '2026-08-01T00:00:00Z' }, /only be shortened/);
    refused({ expires_at: '2026-05-01T00:00:00Z' }, /in the future/);
  });
});

describe('allowedNarrowings (what the consent page offers)', () => {
  const VALUES = {
    cross_domain_transfer: ['deny', 'allow_with_review', 'allow_if_same_provider', 'allow'],
    writeback_policy: ['forbidden', 'review_required', 'auto_for_low_risk', 'allow'],
  } as const;
  for (const policy of ['cross_domain_transfer', 'writeback_policy'] as const) {
    it(`${policy}: offers exactly the choices narrowDraft accepts, the asked one first`, () => {
      for (const asked of VALUES[policy]) {
        const draft = { ...DRAFT, [policy]: asked } as GrantRequestDraft;
        const offered = allowedNarrowings(policy, asked);
        assert.equal(offered[0], asked);
        for (const choice of VALUES[policy]) {
          const accepted = narrowDraft(draft, { [policy]: choice }, NOW).ok;
          assert.equal(offered.includes(choice), accepted, `${asked} → ${choice}`);
        }
      }
    });
  }
});
