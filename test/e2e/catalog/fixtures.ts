import type { GrantRecord } from '../../../src/model/grant-record.ts';
import type { GrantDraft } from '../../../src/operations/grants/consent-grants.ts';
import { getEffectiveProfile } from '../../../src/operations/reads/effective-query-summary.ts';
import { proposeUpdates } from '../../../src/operations/writeback/propose.ts';
import { approve, ask, granted, pkce, requestBody } from '../../support/consent-flow.ts';
import { travelGrant } from '../../support/cross-domain.ts';
import { SECOND_SUBJECT } from '../../support/derived-views.ts';
import type { TestProvider } from '../../support/provider.ts';
import { proposed } from '../../support/writeback.ts';

// One way to call each operation of the catalog successfully (catalog.test.ts). The test refuses
// to pass while an operation has no fixture here: an operation nobody calls is one nobody tested.

export type Who =
  | { readonly kind: 'public' }
  | { readonly kind: 'subject' }
  | { readonly kind: 'grant'; readonly grant: GrantRecord };

export interface Call {
  readonly who: Who;
  readonly input: Record<string, unknown>;
}

export interface Fixture {
  /** Makes the caller and input of one successful call (a fresh request, a proposal…). */
  prepare(p: TestProvider): Promise<Call>;
  /**
   * The call changes what a second identical call would find (it decides, revokes, writes): a
   * comparison across surfaces prepares once per surface, and compares the answers with their
   * new ids and times set aside.
   */
  readonly changes?: true;
  /** The call removes so much that it runs on a provider of its own. */
  readonly fresh?: true;
}

const PUBLIC: Who = { kind: 'public' };
const SUBJECT: Who = { kind: 'subject' };

async function underGrant(p: TestProvider, draft: Partial<GrantDraft>, input: Record<string, unknown> = {}) {
  const { grant } = await p.grant(draft);
  return { who: { kind: 'grant', grant } as const, input };
}

/** A pending proposal of the demo subject, made under a grant that may propose. */
async function pendingProposal(p: TestProvider): Promise<string> {
  const { grant } = await p.grant({ allowed_operations: ['read', 'propose_update'] });
  const r = await proposeUpdates(
    p.deps,
    { kind: 'grant', clientId: grant.grantee_id, grant },
    { claims: [proposed('core', 'novelty_tolerance', 0.41)] },
  );
  if (!r.ok || r.value.proposals?.[0] === undefined) throw new Error('no pending proposal');
  return r.value.proposals[0].proposal_id;
}

/** A claim of the demo subject that only this call uses (the subject's own proposals apply). */
async function ownClaim(p: TestProvider): Promise<string> {
  const r = await proposeUpdates(
    p.deps,
    { kind: 'subject', subjectId: p.subjectId },
    { claims: [proposed('travel', 'outdoor_activity_preference', 0.7, { source: { kind: 'user_stated' } })] },
  );
  if (!r.ok || r.value.claims[0] === undefined) throw new Error('no claim written');
  return r.value.claims[0].claim_id;
}

/** A pending cross-domain review (SPEC §13.2): a travel grant reads fragrance claims. */
async function pendingReview(p: TestProvider): Promise<string> {
  const { grant } = await travelGrant(p, 'allow_with_review');
  const r = await getEffectiveProfile(p.deps, { kind: 'grant', clientId: grant.grantee_id, grant }, {});
  const id = r.ok
    ? (r.value.cross_domain_review as { review_id?: string } | undefined)?.review_id
    : undefined;
  if (id === undefined) throw new Error('no pending review');
  return id;
}

const MATCHING: Partial<GrantDraft> = {
  purposes: ['matching'],
  allowed_domains: ['dating'],
  allowed_namespaces: ['core'],
};

export const FIXTURES: Readonly<Record<string, Fixture>> = {
  get_discovery_card: { prepare: async () => ({ who: PUBLIC, input: {} }) },
  list_extensions: { prepare: async () => ({ who: PUBLIC, input: {} }) },
  list_granted_access: { prepare: (p) => underGrant(p, {}) },
  get_profile_summary: { prepare: (p) => underGrant(p, {}) },
  // Each filter removes claims the others keep, so a surface that dropped one would answer otherwise.
  query_claims: {
    prepare: (p) =>
      underGrant(
        p,
        {},
        { requested_namespaces: ['fragrance'], provenance: ['user_stated'], min_confidence: 0.75 },
      ),
  },
  get_effective_profile: {
    prepare: (p) =>
      underGrant(
        p,
        {},
        {
          context: { climate: 'hot_humid', occasion: 'date_night' },
          requested_keys: ['novelty_tolerance', 'fragrance.intensity_preference', 'fragrance.note_aversions'],
          purpose: 'recommendation',
        },
      ),
  },
  // One low-risk claim (applied) and one confident inference (queued): both declared audits.
  propose_updates: {
    changes: true,
    prepare: (p) =>
      underGrant(
        p,
        { allowed_operations: ['read', 'propose_update'], writeback_policy: 'auto_for_low_risk' },
        {
          claims: [
            proposed('fragrance', 'freshness_preference', 0.3),
            proposed('core', 'risk_tolerance', 0.9, { confidence: 0.95, source: { kind: 'inferred' } }),
          ],
        },
      ),
  },
  // A confirmation, a rejection and a stored claim confirmed: every declared audit.
  confirm_updates: {
    changes: true,
    prepare: async (p) => {
      const confirmed = await pendingProposal(p);
      const rejected = await pendingProposal(p);
      return underGrant(
        p,
        { allowed_operations: ['read', 'confirm_update'] },
        {
          decisions: [
            { proposal_id: confirmed, action: 'confirm' },
            { proposal_id: rejected, action: 'reject' },
            // One the person did not state: what they said is theirs to confirm (issue 22 item 2).
            { claim_id: 'ppx:claim:demo-frag-freshness', action: 'confirm' },
          ],
        },
      );
    },
  },
  list_consent_grants: { prepare: (p) => underGrant(p, {}) },
  revoke_consent_grant: {
    changes: true,
    prepare: async (p) => {
      const { grant } = await p.grant({});
      return { who: { kind: 'grant', grant }, input: { grant_id: grant.grant_id } };
    },
  },
  export_profile: { prepare: (p) => underGrant(p, { allowed_operations: ['read', 'export'] }) },
  list_audit_events: { prepare: async () => ({ who: SUBJECT, input: { limit: '5' } }) },
  list_grant_usage: { prepare: async () => ({ who: SUBJECT, input: {} }) },
  request_consent: {
    changes: true,
    prepare: async (p) => ({ who: PUBLIC, input: requestBody(p, pkce().challenge) }),
  },
  approve_grant_request: {
    changes: true,
    prepare: async (p) => ({ who: SUBJECT, input: { grant_request_id: (await ask(p)).id } }),
  },
  reject_grant_request: {
    changes: true,
    prepare: async (p) => ({ who: SUBJECT, input: { grant_request_id: (await ask(p)).id } }),
  },
  exchange_grant_request: {
    changes: true,
    prepare: async (p) => {
      const pending = await ask(p);
      await approve(p, pending.id);
      return {
        who: PUBLIC,
        input: {
          grant_request_id: pending.id,
          request_token: pending.requestToken,
          code_verifier: pending.verifier,
          client_id: pending.clientId,
        },
      };
    },
  },
  refresh_grant_tokens: {
    changes: true,
    prepare: async (p) => {
      const g = await granted(p);
      return { who: PUBLIC, input: { client_id: 'fragrance-demo', refresh_token: g.refresh } };
    },
  },
  list_claim_history: { prepare: async () => ({ who: SUBJECT, input: { limit: '10' } }) },
  diff_profile: {
    prepare: async () => ({ who: SUBJECT, input: { from: new Date(Date.now() - 86_400_000).toISOString() } }),
  },
  delete_claim: {
    changes: true,
    prepare: async (p) => ({ who: SUBJECT, input: { claim_id: await ownClaim(p) } }),
  },
  delete_namespace: {
    changes: true,
    fresh: true,
    prepare: async () => ({ who: SUBJECT, input: { namespace: 'travel' } }),
  },
  delete_profile: { changes: true, fresh: true, prepare: async () => ({ who: SUBJECT, input: {} }) },
  get_sensitive_keys: { prepare: async () => ({ who: SUBJECT, input: {} }) },
  set_sensitive_keys: {
    changes: true,
    prepare: async () => ({ who: SUBJECT, input: { sensitive_keys: ['novelty_tolerance'] } }),
  },
  list_cross_domain_reviews: { prepare: async () => ({ who: SUBJECT, input: { status: 'all' } }) },
  approve_cross_domain_review: {
    changes: true,
    prepare: async (p) => ({ who: SUBJECT, input: { review_id: await pendingReview(p) } }),
  },
  reject_cross_domain_review: {
    changes: true,
    prepare: async (p) => ({ who: SUBJECT, input: { review_id: await pendingReview(p) } }),
  },
  derive_match: {
    prepare: (p) =>
      underGrant(
        p,
        { purposes: ['matching'] },
        { target: { budget_sensitivity: 0.5, 'core.risk_tolerance': 0.35 } },
      ),
  },
  derive_compatibility: {
    prepare: async (p) => {
      const { grant: other } = await p.grant({ ...MATCHING, subject_id: SECOND_SUBJECT });
      return underGrant(p, MATCHING, { counterpart_grant_id: other.grant_id });
    },
  },
  derive_recommendation_basis: { prepare: (p) => underGrant(p, {}, { context: { occasion: 'date_night' } }) },
};
