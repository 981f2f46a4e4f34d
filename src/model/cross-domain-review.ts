/** A subject's review of a cross-domain transfer (SPEC §13.2); see docs/cross-domain.md. */
export interface CrossDomainReviewRecord {
  readonly review_id: string;
  readonly grant_id: string;
  /** The grantee's client id, for the subject's review list. */
  readonly grantee_id: string;
  readonly subject_id: string;
  /** The domains whose claims would be mapped, sorted. */
  readonly source_domains: readonly string[];
  /** The domain(s) the grantee uses the claims in, sorted and comma-joined. */
  readonly target_domain: string;
  readonly status: CrossDomainReviewStatus;
  /** The core keys that would cross (never the domain keys' values). */
  readonly mapped_keys: readonly string[];
  readonly created_at: string;
  readonly decided_at?: string;
}

export type CrossDomainReviewStatus = 'pending' | 'approved' | 'rejected';
