import type { Claim } from '../../../../../src/model/claim.ts';
import type { ClaimHistoryInput } from '../../../../../src/model/claim-history.ts';
import type { ConsentGrant } from '../../../../../src/model/consent-grant.ts';
import type { ProposalRecord } from '../../../../../src/model/proposal.ts';
import { DEMO_SUBJECT, demoProfile } from '../../../../../src/operations/seed/demo-profile.ts';
import { profileDiff } from '../../../../../src/operations/writeback/diff.ts';
import {
  claimCard,
  consentRequestForm,
  grantCard,
  profileDiffView,
  proposalCard,
  type SuggestionGroup,
  type SurfaceParts,
  suggestionGroup,
} from '../../../../../src/surfaces/shared/a2ui/index.ts';

// The PPX objects the A2UI tests render: the demo profile (every provenance kind and value type),
// claims whose text would trip the renderer's JSON parsing or path splitting, a proposal, grants
// with and without expiry and a revoked one, a diff with each kind of change, and consent
// requests over several namespaces.

export const NOW = new Date('2027-03-01T00:00:00Z');
const DAY = 86_400_000;
const iso = (days: number) => new Date(NOW.getTime() + days * DAY).toISOString();

export const DEMO_CLAIMS = (demoProfile(NOW).claims ?? []) as Claim[];

const base = DEMO_CLAIMS[0] as Claim;
/** Strings the renderer would parse as JSON, and map keys it would split on `.`. */
export const AWKWARD_CLAIMS: Claim[] = [
  {
    ...base,
    claim_id: 'ppx:claim:awkward-json',
    explanation: { summary: '{"looks": "like json"}', detail: '[x]' },
  },
  {
    ...base,
    claim_id: 'ppx:claim:awkward.dots_and~more',
    namespace: 'fragrance',
    key: 'family_preference',
    value: { 'woody.dry': 0.7, citrus: 0.2 },
    value_type: 'map<string,float>',
    units: undefined,
    source: { kind: 'inferred', origin: '[model]', evidence_refs: ['ppx:evidence:e1', 'ppx:evidence:e2'] },
    review: { review_status: 'pending_confirmation', user_visible: true },
  },
];

export const PROPOSAL: ProposalRecord = {
  proposal_id: 'ppx:proposal:p-1',
  profile_id: 'ppx:profile:demo',
  grant_id: 'ppx:grant:g-1',
  client_id: 'fragrance-demo',
  status: 'pending',
  created_at: iso(-2),
  claim: { ...(DEMO_CLAIMS[1] as Claim), value: 0.3, review: { review_status: 'pending_confirmation' } },
  target_claim_id: (DEMO_CLAIMS[1] as Claim).claim_id,
};

const AVERSIONS = DEMO_CLAIMS.find((c) => c.key === 'note_aversions') as Claim;
const suggested = (n: number, claim: Partial<Claim>, target?: string) => ({
  proposal_id: `ppx:proposal:s-${n}`,
  client_id: n === 1 ? 'fragrance-demo' : 'travel-demo',
  created_at: iso(-3 + n),
  claim: { ...AVERSIONS, ...claim, review: { review_status: 'pending_confirmation' as const } },
  ...(target !== undefined ? { target_claim_id: target } : {}),
});

/** Suggestions for one key: two over the person's own words; one for a key not stored yet. */
export const SUGGESTIONS: Record<'overYours' | 'fresh', SuggestionGroup> = {
  overYours: {
    key: 'fragrance.note_aversions',
    current: AVERSIONS,
    suggestions: [
      suggested(1, { value: ['vanilla'], source: { kind: 'inferred' }, confidence: 0.8 }, AVERSIONS.claim_id),
      suggested(
        2,
        { value: ['musk', 'oud'], source: { kind: 'observed' }, confidence: 0.6 },
        AVERSIONS.claim_id,
      ),
    ],
  },
  fresh: {
    key: 'fragrance.freshness_preference',
    current: undefined,
    suggestions: [
      suggested(3, {
        claim_id: 'ppx:claim:new-fresh',
        key: 'freshness_preference',
        type: 'preference',
        value: 0.3,
        value_type: 'float',
        units: 'normalized_0_1',
        source: { kind: 'observed' },
      }),
    ],
  },
};

/** A client's name as the app shows it, or none (the card then says "an app you allowed"). */
export const appNameOf = (id: string) => (id === 'fragrance-demo' ? 'Fragrance Demo App' : undefined);

const groupObject = (g: SuggestionGroup) => ({
  key: g.key,
  ...(g.current !== undefined ? { current: g.current } : {}),
  suggestions: g.suggestions,
});

const grant = (id: string, extra: Partial<ConsentGrant>): ConsentGrant => ({
  grant_id: `ppx:grant:${id}`,
  subject_id: DEMO_SUBJECT,
  grantee_id: 'fragrance-demo',
  status: 'active',
  granted_at: iso(-7),
  purposes: ['recommendation', 'personalization'],
  allowed_domains: ['fragrance'],
  allowed_namespaces: ['core', 'fragrance'],
  allowed_operations: ['read', 'query'],
  cross_domain_transfer: 'deny',
  writeback_policy: 'review_required',
  ...extra,
});

export const GRANTS = {
  expiring: grant('expiring', {
    expires_at: iso(23),
    allowed_claim_keys: ['novelty_tolerance', 'fragrance.family_preference'],
  }),
  open: grant('open', { grantee_id: 'travel-demo', allowed_domains: ['travel', 'fragrance'] }),
  revoked: grant('revoked', { status: 'revoked', revoked_at: iso(-1), expires_at: iso(10) }),
};

const at = (days: number) => iso(days);
const c = (i: number) => DEMO_CLAIMS[i] as Claim;
const history: ClaimHistoryInput[] = [
  ...[0, 1, 2].map((i) => ({
    claim_id: c(i).claim_id,
    profile_id: 'ppx:profile:demo',
    at: at(-10),
    claim: c(i),
    change: 'created' as const,
    actor: { kind: 'subject' as const, id: DEMO_SUBJECT },
  })),
  {
    claim_id: c(1).claim_id,
    profile_id: 'ppx:profile:demo',
    at: at(-5),
    claim: { ...c(1), value: 0.8, confidence: 0.95 },
    change: 'updated',
    actor: { kind: 'subject', id: DEMO_SUBJECT },
  },
  {
    claim_id: c(2).claim_id,
    profile_id: 'ppx:profile:demo',
    at: at(-5),
    claim: null,
    change: 'deleted',
    actor: { kind: 'subject', id: DEMO_SUBJECT },
  },
  {
    claim_id: c(7).claim_id,
    profile_id: 'ppx:profile:demo',
    at: at(-4),
    claim: c(7),
    change: 'created',
    actor: { kind: 'subject', id: DEMO_SUBJECT },
  },
];
export const DIFF = profileDiff(history, Date.parse(at(-8)), Date.parse(at(-1)));

export const REQUESTS = {
  several: {
    grant_request_id: 'req_3f9a.x',
    client_id: 'travel-demo',
    grant_draft: {
      purposes: ['recommendation', 'matching', 'explanation'],
      allowed_domains: ['travel', 'fragrance'],
      allowed_namespaces: ['core', 'travel', 'fragrance'],
      allowed_claim_keys: ['novelty_tolerance', 'travel.pace_preference', 'fragrance.note_aversions'],
      allowed_operations: ['read', 'propose_update'],
      cross_domain_transfer: 'allow_with_review',
      writeback_policy: 'auto_for_low_risk',
      expires_at: iso(30),
      access_mode: 'continuous' as const,
    },
  },
  once: {
    grant_request_id: 'req_once',
    client_id: 'fragrance-demo',
    grant_draft: {
      purposes: ['matching'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['fragrance'],
      allowed_operations: ['read'],
      cross_domain_transfer: 'deny',
      writeback_policy: 'forbidden',
      expires_at: iso(1),
      access_mode: 'single_use' as const,
    },
  },
};

/** Every surface the tests check: a name for messages, its parts, the object at its first data path. */
export function allSurfaces(): Array<[string, SurfaceParts, object]> {
  const diffs = [
    { profile_id: 'ppx:profile:demo', from: at(-8), to: at(-1), diff: DIFF },
    {
      profile_id: 'ppx:profile:demo',
      from: at(-1),
      to: at(0),
      diff: { added: [], changed: [], removed: [] },
    },
  ];
  return [
    ...[...DEMO_CLAIMS, ...AWKWARD_CLAIMS].map((cl): [string, SurfaceParts, object] => [
      `claim ${cl.claim_id}`,
      claimCard(cl, NOW),
      cl,
    ]),
    ['proposal', proposalCard(PROPOSAL, 'Fragrance Demo App', NOW), PROPOSAL],
    ['proposal, unnamed app', proposalCard(PROPOSAL, undefined, NOW), PROPOSAL],
    [
      'suggestions over the person’s own words',
      suggestionGroup(SUGGESTIONS.overYours, appNameOf),
      groupObject(SUGGESTIONS.overYours),
    ],
    [
      'a suggestion for a new preference',
      suggestionGroup(SUGGESTIONS.fresh, appNameOf),
      groupObject(SUGGESTIONS.fresh),
    ],
    [
      'grant with expiry',
      grantCard({ grant: GRANTS.expiring, clientName: 'Fragrance Demo App' }, NOW),
      GRANTS.expiring,
    ],
    ['grant without expiry', grantCard({ grant: GRANTS.open }, NOW), GRANTS.open],
    [
      'revoked grant',
      grantCard({ grant: GRANTS.revoked, clientName: 'Fragrance Demo App' }, NOW),
      GRANTS.revoked,
    ],
    ['diff', profileDiffView(diffs[0] as never), DIFF],
    ['empty diff', profileDiffView(diffs[1] as never), (diffs[1] as { diff: object }).diff],
    [
      'consent request, several namespaces',
      consentRequestForm(REQUESTS.several, 'Travel Demo Agent', NOW),
      REQUESTS.several,
    ],
    ['consent request, one use', consentRequestForm(REQUESTS.once, undefined, NOW), REQUESTS.once],
  ];
}
