import fc from 'fast-check';
import type { Claim } from '../../src/model/claim.ts';
import { CrossDomainTransfer, Operation, Purpose, WritebackPolicy } from '../../src/model/vocabulary.ts';
import { DEMO_CLIENTS, demoProfile } from '../../src/operations/seed/demo-profile.ts';

// What one case of the redaction property is made of (redaction.ts runs it): a random profile, a
// random grant over it, which of the claims the grant cannot see exist only in one of the two
// providers, and a random sequence of calls on every surface. A case is plain data, so fast-check
// can shrink it and print it; ids are given when the case runs (world.ts), never generated.

/** The claims a profile is drawn from: the demo profile's, as shapes without ids. */
export const POOL: readonly Omit<Claim, 'claim_id'>[] = (demoProfile(new Date(0)).claims ?? []).map(
  ({ claim_id: _id, ...rest }) => rest,
);

const DOMAINS = ['fragrance', 'travel', 'media'] as const;
const NAMESPACES = ['core', 'fragrance', 'travel'] as const;
const KINDS = ['user_stated', 'observed', 'inferred', 'imported', 'derived_aggregate'] as const;
const REVIEWS = ['confirmed', 'unreviewed', 'rejected'] as const;
// The grant vocabularies are the model's own, so that a new value is generated too.
const OPERATIONS = Operation.options;
const PURPOSES = Purpose.options;
const CROSS_DOMAIN = CrossDomainTransfer.options;
const WRITEBACK = WritebackPolicy.options;

/** One claim of the profile: a pool entry with its own provenance and, when hidden, only in one provider. */
export interface ClaimDraft {
  readonly pool: number;
  readonly kind: (typeof KINDS)[number];
  readonly review: (typeof REVIEWS)[number];
  readonly confidence: number;
  /** A core claim's applicability.domains (none: it travels to every domain). */
  readonly domains: readonly string[];
  /** When the grant cannot see the claim: whether it exists only in the "hidden" provider. */
  readonly hideIfOutside: boolean;
}

export interface GrantDraftCase {
  readonly client: number;
  readonly purposes: readonly string[];
  readonly domains: readonly string[];
  readonly namespaces: readonly string[];
  /** Indexes into POOL, kept to the grant's namespaces when the grant is made; none: every key. */
  readonly keys: readonly number[] | null;
  readonly operations: readonly string[];
  readonly crossDomain: (typeof CROSS_DOMAIN)[number];
  readonly writeback: (typeof WRITEBACK)[number];
  /** Days from now; negative: an expired grant. */
  readonly expiresInDays: number;
  readonly singleUse: boolean;
}

/** `package`: MCP under a package token over the case's grant and its second one, by child id. */
export type Surface = 'http' | 'mcp' | 'a2a' | 'package';

/** One call a grantee makes; `op` names a catalog operation, the rest picks its input. */
export interface Step {
  readonly op: string;
  readonly surface: Surface;
  /** Picks among an operation's inputs (calls.ts#inputOf). */
  readonly variant: number;
  /** Pool entries the input names (proposals, keys of a query, a match target). */
  readonly keys: readonly number[];
  readonly value: number;
}

export interface Case {
  readonly claims: readonly ClaimDraft[];
  readonly grant: GrantDraftCase;
  /** A second grant to the same client; with it, `package` steps use one token over both. */
  readonly second: GrantDraftCase | null;
  readonly steps: readonly Step[];
  /** The surface the grant is revoked on after the steps (then one read more), or none. */
  readonly revokeOn: Surface | null;
}

/** The operations a grantee may call, with the surfaces each is on (the catalog's). */
export const GRANTEE_CALLS: Readonly<Record<string, readonly Surface[]>> = {
  get_profile_summary: ['http', 'mcp', 'package'],
  query_claims: ['http', 'mcp', 'a2a', 'package'],
  get_effective_profile: ['http', 'mcp', 'a2a', 'package'],
  export_profile: ['http', 'mcp', 'package'],
  list_consent_grants: ['http', 'mcp'],
  list_granted_access: ['mcp', 'package'],
  list_audit_events: ['http'],
  propose_updates: ['http', 'mcp', 'a2a'],
  confirm_updates: ['http', 'mcp'],
  list_claim_history: ['http'],
  diff_profile: ['http'],
  delete_claim: ['http'],
  list_cross_domain_reviews: ['http'],
  derive_match: ['http'],
  derive_compatibility: ['http', 'a2a'],
  derive_recommendation_basis: ['http', 'a2a'],
  // Not operations: the MCP resources, the AG-UI review stream under a grant's token.
  mcp_resource: ['mcp'],
  agui_review: ['http'],
  // Not the grantee's: the person confirms the oldest proposal still pending (write-back review).
  subject_confirm: ['http'],
};

/** How a case may end: the grantee gives the grant up, then tries one more read. */
export const REVOKE_SURFACES: readonly Surface[] = ['http', 'mcp'];

const subset = <T>(items: readonly T[], min = 0) =>
  fc.subarray([...items], { minLength: min, maxLength: items.length });
/** Each item with probability `tenths`/10 (so most grants hold what most calls need). */
const biased = <T>(items: readonly T[], tenths: number) =>
  fc.tuple(...items.map(() => fc.nat(9))).map((mask) => items.filter((_, i) => (mask[i] as number) < tenths));
const indexes = (max: number) => fc.uniqueArray(fc.nat(max - 1), { maxLength: 4 });

export const claimDraft: fc.Arbitrary<ClaimDraft> = fc.record({
  pool: fc.nat(POOL.length - 1),
  kind: fc.constantFrom(...KINDS),
  review: fc.constantFrom(...REVIEWS),
  confidence: fc.constantFrom(0.3, 0.6, 0.9),
  domains: subset(DOMAINS),
  hideIfOutside: fc.boolean(),
});

export const grantDraft: fc.Arbitrary<GrantDraftCase> = fc.record({
  client: fc.nat(DEMO_CLIENTS.length - 1),
  purposes: biased(PURPOSES, 5),
  domains: subset(['fragrance', 'travel'], 1),
  namespaces: subset(NAMESPACES, 1),
  keys: fc.option(fc.uniqueArray(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 6 }), { nil: null }),
  // Each operation in most grants, so that most calls get past the scope check.
  operations: biased(OPERATIONS, 7),
  crossDomain: fc.constantFrom(...CROSS_DOMAIN),
  writeback: fc.constantFrom(...WRITEBACK),
  expiresInDays: fc.oneof(
    { weight: 9, arbitrary: fc.constant(30) },
    { weight: 1, arbitrary: fc.constant(-1) },
  ),
  singleUse: fc.boolean(),
});

const step: fc.Arbitrary<Step> = fc.constantFrom(...Object.keys(GRANTEE_CALLS)).chain((op) =>
  fc.record({
    op: fc.constant(op),
    surface: fc.constantFrom(...(GRANTEE_CALLS[op] as Surface[])),
    variant: fc.nat(3),
    keys: indexes(POOL.length),
    value: fc.constantFrom(0.1, 0.5, 0.95),
  }),
);

export const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  // Unique pool entries: a profile holds one claim per key and shape.
  claims: fc.uniqueArray(claimDraft, { minLength: 1, maxLength: 12, selector: (c) => c.pool }),
  grant: grantDraft,
  second: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: grantDraft }),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  revokeOn: fc.option(fc.constantFrom(...REVOKE_SURFACES), { nil: null, freq: 2 }),
});
