// Change events (docs/store.md, "Change events"): one outbox row per change to a person's data,
// written in the same transaction as the change and delivered to subscribers after commit.
//
// An event says what changed and where, never to what: it carries ids, not claim values. Who may
// see what is decided again when a subscriber reads, so an event names a superset of the grants
// that might care (`grants`), never a claim a reader could not otherwise get.
//
// Writes that are not a change to a person's data emit nothing: sign-in sessions, signing keys,
// settings other than the sensitive keys, clients (registered, updated or cached from a metadata
// document), the pairwise ids a grant records, token issuance (a refresh family started, a
// refresh token issued or rotated: a rotation that is not a death) and audit appends (the audit
// log is its own record, read through the audit operations). A subscriber learns nothing from
// them it could act on, and the hot paths that make them (every read audits) stay one commit.

/** One kind per kind of write; the operations that emit each are listed in docs/store.md. */
export const CHANGE_KINDS = [
  /** Claims created or updated (a proposal applied, a subject's own write, a confirmation). */
  'claims_written',
  /** Claims (and context modifiers) deleted by the subject: one claim or a namespace. */
  'claims_deleted',
  /** A profile created empty for a new account. */
  'profile_created',
  /** A whole profile deleted by the subject (its grants stay, as evidence of consent). */
  'profile_deleted',
  /** A profile written from a PPX document (`ppx import`, the demo seed), replacing any before. */
  'profile_imported',
  /** Proposals queued for the subject's review. */
  'proposal_created',
  /** Pending proposals confirmed, edited or rejected (or closed by a deletion). */
  'proposal_decided',
  /** A grant created (operator mint, an approved consent request, a restore by import). */
  'grant_created',
  /** A grant's scope or lifetime shrunk: a single-use grant's expiry moved to its token's end. */
  'grant_narrowed',
  /** A grant revoked (by the subject, the grantee, a reused refresh token or code, RFC 7009). */
  'grant_revoked',
  /** A grant found past its expiry, announced once (the first time an operation sees it). */
  'grant_expired',
  /** A refresh family ended: reuse detected, its grants revoked, a package disconnected. */
  'refresh_family_ended',
  /** A consent request recorded (consent-v2 or an OAuth authorization), pending the subject. */
  'consent_requested',
  /** A consent request (or every element of a package) approved or rejected. */
  'consent_decided',
  /** A cross-domain transfer review created for the subject to decide. */
  'cross_domain_review_requested',
  /** A cross-domain transfer review approved or rejected. */
  'cross_domain_review_decided',
  /** The subject's list of sensitive keys replaced. */
  'sensitive_keys_changed',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The ids a change touched; each list is present only when the change has some. */
export interface ChangeIds {
  readonly claim_ids?: readonly string[];
  readonly proposal_ids?: readonly string[];
  readonly grant_ids?: readonly string[];
  readonly review_ids?: readonly string[];
  readonly grant_request_ids?: readonly string[];
  readonly family_ids?: readonly string[];
  /** The namespaces whose claims changed. */
  readonly namespaces?: readonly string[];
}

/** A change as an operation announces it, before the store gives it a place in the sequence. */
export interface ChangeDraft {
  /** Whose data changed (the internal subject id). */
  readonly subject_id: string;
  readonly kind: ChangeKind;
  readonly ids: ChangeIds;
  /** The grants the change is about or may matter to (a superset is fine), sorted, unique. */
  readonly grants: readonly string[];
  /** When the change was made (RFC 3339, UTC): the writing operation's clock, as its records'. */
  readonly at: string;
}

export interface ChangeEvent extends ChangeDraft {
  /**
   * Position in the outbox: strictly increasing in commit order, never reused. A subscriber that
   * reconnects with the last seq it saw gets every event after it.
   */
  readonly seq: number;
}
