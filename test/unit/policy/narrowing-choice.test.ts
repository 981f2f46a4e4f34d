import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GrantRequestDraft } from '../../../src/model/grant-request.ts';
import { type KeptChoice, narrowDraft, narrowingOfChoice } from '../../../src/policy/narrowing.ts';

// The one diff between what an app asked for and what the person kept, used by the consent page
// (surfaces/web/decision.ts) and the web app's A2UI form (web/app/src/narrowing.ts).

const NOW = new Date('2026-06-01T00:00:00Z');
const DRAFT: GrantRequestDraft = {
  purposes: ['recommendation', 'ranking'],
  allowed_domains: ['fragrance', 'travel'],
  allowed_namespaces: ['core', 'fragrance'],
  allowed_claim_keys: ['core.budget_sensitivity', 'fragrance.freshness_preference', 'fragrance.intensity'],
  allowed_operations: ['read', 'query'],
  cross_domain_transfer: 'allow_with_review',
  writeback_policy: 'auto_for_low_risk',
  expires_at: '2026-07-01T00:00:00.000Z',
  access_mode: 'continuous',
};
const OFFERED = DRAFT.allowed_claim_keys!;

const asAsked: KeptChoice = {
  purposes: DRAFT.purposes,
  allowed_domains: DRAFT.allowed_domains,
  allowed_namespaces: DRAFT.allowed_namespaces,
  allowed_claim_keys: OFFERED,
  allowed_operations: DRAFT.allowed_operations,
};

const diff = (kept: Partial<KeptChoice>, offered: readonly string[] = OFFERED, draft = DRAFT) =>
  narrowingOfChoice(draft, { ...asAsked, ...kept }, offered);

describe('the narrowing a choice expresses (narrowingOfChoice)', () => {
  it('keeping everything, or choosing what was asked, is the empty narrowing', () => {
    assert.deepEqual(diff({}), {});
    assert.deepEqual(
      diff({
        purposes: ['ranking', 'recommendation', 'ranking'],
        cross_domain_transfer: DRAFT.cross_domain_transfer,
        writeback_policy: DRAFT.writeback_policy,
        expires_at: DRAFT.expires_at,
      }),
      {},
    );
  });

  it('names only the fields that changed, each list once', () => {
    assert.deepEqual(diff({ purposes: ['ranking', 'ranking'], allowed_operations: ['read'] }), {
      purposes: ['ranking'],
      allowed_operations: ['read'],
    });
    assert.deepEqual(
      diff({
        cross_domain_transfer: 'deny',
        writeback_policy: 'forbidden',
        expires_at: '2026-06-10T23:59:59.000Z',
      }),
      {
        cross_domain_transfer: 'deny',
        writeback_policy: 'forbidden',
        expires_at: '2026-06-10T23:59:59.000Z',
      },
    );
  });

  it('a ticked key is compared without its "core." prefix', () => {
    assert.deepEqual(diff({ allowed_claim_keys: ['budget_sensitivity', 'fragrance.freshness_preference'] }), {
      allowed_claim_keys: ['budget_sensitivity', 'fragrance.freshness_preference'],
    });
    assert.deepEqual(
      diff({
        allowed_claim_keys: ['budget_sensitivity', 'fragrance.freshness_preference', 'fragrance.intensity'],
      }),
      {},
    );
  });

  it('unticking a namespace drops its keys without naming them; narrowDraft drops them too', () => {
    const narrow = diff({ allowed_namespaces: ['fragrance'] });
    assert.deepEqual(narrow, { allowed_namespaces: ['fragrance'] });
    const r = narrowDraft(DRAFT, narrow, NOW);
    assert.ok(r.ok);
    assert.deepEqual(r.value.allowed_claim_keys, ['fragrance.freshness_preference', 'fragrance.intensity']);
    // A key unticked besides is named, among the namespaces kept.
    assert.deepEqual(
      diff({ allowed_namespaces: ['fragrance'], allowed_claim_keys: ['fragrance.intensity'] }),
      {
        allowed_namespaces: ['fragrance'],
        allowed_claim_keys: ['fragrance.intensity'],
      },
    );
  });

  it('a request without a key list gains one when an offered key is unticked, and none otherwise', () => {
    const { allowed_claim_keys: _, ...noKeys } = DRAFT;
    // The consent page offers every key of the namespaces asked; the web app's form offers none.
    assert.deepEqual(diff({ allowed_claim_keys: OFFERED }, OFFERED, noKeys), {});
    assert.deepEqual(diff({ allowed_claim_keys: ['fragrance.intensity'] }, OFFERED, noKeys), {
      allowed_claim_keys: ['fragrance.intensity'],
    });
    assert.deepEqual(diff({ allowed_claim_keys: [] }, [], noKeys), {});
  });

  it('a value the form could not have offered is carried on, so that narrowDraft refuses it', () => {
    const narrow = diff({ purposes: ['recommendation', 'advertising'], cross_domain_transfer: '' });
    assert.deepEqual(narrow, { purposes: ['recommendation', 'advertising'], cross_domain_transfer: '' });
    const r = narrowDraft(DRAFT, { purposes: narrow.purposes }, NOW);
    assert.equal(r.ok, false);
    assert.deepEqual(diff({ allowed_domains: [] }), { allowed_domains: [] });
  });
});
