import assert from 'node:assert/strict';
import type { GrantDraft } from '../../../src/operations/grants/consent-grants.ts';
import { api, type TestProvider } from '../../support/provider.ts';
import { proposed } from '../../support/writeback.ts';

// The ways a claim can be hidden from a grant, each with the grant, the hidden claims and what the
// run proposes (hidden-claims.test.ts runs every grant-callable operation against a provider with
// them and one without).

export interface Scenario {
  readonly name: string;
  readonly grant: Partial<GrantDraft>;
  /** Makes the hidden claims that the demo profile lacks (in both providers, before `remove`). */
  prepare?(p: TestProvider): Promise<void>;
  /** Deletes the hidden claims: the provider where they do not exist. */
  remove(p: TestProvider): Promise<void>;
  /** Ids of the hidden claims: never in any answer. */
  readonly hidden: readonly string[];
  /** Proposals that name the hidden claims' keys (and one the grant sees). */
  readonly proposals: readonly unknown[];
}

const WRITES = ['read', 'query', 'export', 'propose_update', 'confirm_update'] as const;

async function asSubject(p: TestProvider, method: string, path: string, body?: unknown) {
  const r = await api(p.url, path, { method, token: p.subjectToken, ...(body ? { body } : {}) });
  assert.ok(r.status < 300, `${method} ${path}: ${r.text}`);
}
const deleteClaims =
  (...ids: string[]) =>
  async (p: TestProvider) => {
    for (const id of ids) await asSubject(p, 'DELETE', `/v1/profile/claims/${encodeURIComponent(id)}`);
  };

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'a key-limited grant: other keys, another namespace, a claim of another domain, a rejected claim',
    grant: {
      purposes: ['recommendation', 'matching'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_claim_keys: [
        'novelty_tolerance',
        'budget_sensitivity',
        'ambiguity_tolerance',
        'fragrance.intensity_preference',
        'fragrance.freshness_preference',
      ],
      allowed_operations: [...WRITES],
      writeback_policy: 'auto_for_low_risk',
    },
    async prepare(p) {
      // The subject stated novelty for other domains only, and rejected the ambiguity inference.
      await asSubject(p, 'POST', '/v1/profile/propose-updates', {
        claims: [
          proposed('core', 'novelty_tolerance', 0.62, {
            claim_id: 'ppx:claim:demo-core-novelty',
            source: { kind: 'user_stated' },
            applicability: { domains: ['travel', 'media'] },
          }),
          proposed('core', 'ambiguity_tolerance', 0.58, {
            claim_id: 'ppx:claim:demo-core-ambiguity',
            source: { kind: 'derived_aggregate' },
            review: { review_status: 'rejected' },
          }),
        ],
      });
    },
    async remove(p) {
      await deleteClaims(
        'ppx:claim:demo-core-novelty',
        'ppx:claim:demo-core-ambiguity',
        'ppx:claim:demo-frag-aversions',
        'ppx:claim:demo-frag-family',
      )(p);
      await asSubject(p, 'DELETE', '/v1/profile/namespaces/travel');
    },
    hidden: [
      'ppx:claim:demo-core-novelty',
      'ppx:claim:demo-core-ambiguity',
      'ppx:claim:demo-frag-aversions',
      'ppx:claim:demo-frag-family',
      'ppx:claim:demo-travel-pace',
    ],
    proposals: [
      proposed('core', 'novelty_tolerance', 0.3, { claim_id: 'ppx:claim:demo-core-novelty' }),
      proposed('core', 'ambiguity_tolerance', 0.4),
      // Queued (high-confidence inference) over a claim the person has not reviewed, so the grant's
      // confirm_update may confirm it; budget, over what the person said, is theirs (issue 22 item 2).
      proposed('fragrance', 'freshness_preference', 0.2, { source: { kind: 'inferred' }, confidence: 0.9 }),
      proposed('core', 'budget_sensitivity', 0.9, { source: { kind: 'inferred' }, confidence: 0.9 }),
    ],
  },
  {
    name: 'allow_with_review: the claims of another domain',
    grant: {
      client_id: 'travel-demo',
      purposes: ['recommendation', 'matching'],
      allowed_domains: ['travel'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: [...WRITES],
      cross_domain_transfer: 'allow_with_review',
      writeback_policy: 'auto_for_low_risk',
    },
    async remove(p) {
      await asSubject(p, 'DELETE', '/v1/profile/namespaces/fragrance');
    },
    hidden: ['ppx:claim:demo-frag-intensity', 'ppx:claim:demo-frag-family', 'ppx:claim:demo-frag-aversions'],
    proposals: [
      proposed('fragrance', 'intensity_preference', 0.3, { claim_id: 'ppx:claim:demo-frag-intensity' }),
      proposed('core', 'risk_tolerance', 0.5),
      proposed('core', 'novelty_tolerance', 0.9, { source: { kind: 'inferred' }, confidence: 0.9 }),
    ],
  },
  {
    name: 'allow_if_same_provider: an imported claim of another domain',
    grant: {
      client_id: 'travel-demo',
      purposes: ['recommendation', 'matching'],
      allowed_domains: ['travel'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: [...WRITES],
      cross_domain_transfer: 'allow_if_same_provider',
      writeback_policy: 'auto_for_low_risk',
    },
    remove: deleteClaims('ppx:claim:demo-frag-occasion'),
    hidden: ['ppx:claim:demo-frag-occasion'],
    proposals: [
      proposed('fragrance', 'occasion_bias', { office: 0.2 }, { value_type: 'map<string,float>' }),
      proposed('fragrance', 'freshness_preference', 0.3),
      proposed('core', 'novelty_tolerance', 0.9, { source: { kind: 'inferred' }, confidence: 0.9 }),
    ],
  },
];
