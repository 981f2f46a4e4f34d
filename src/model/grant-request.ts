/** What a client asks for, before the subject decides (WIRE-NOTES §2.1). */
export interface GrantRequestDraft {
  readonly purposes: readonly string[];
  readonly allowed_domains: readonly string[];
  readonly allowed_namespaces: readonly string[];
  readonly allowed_claim_keys?: readonly string[];
  readonly allowed_operations: readonly string[];
  readonly cross_domain_transfer: string;
  readonly writeback_policy: string;
  /** When the grant would expire if approved as asked. */
  readonly expires_at: string;
  readonly access_mode: 'continuous' | 'single_use';
}

export type GrantRequestStatus = 'pending' | 'approved' | 'rejected' | 'exchanged';

/** What an OAuth authorization request adds to a consent request (WIRE-NOTES §3). */
export interface OAuthRequestFacts {
  /** Echoed to the client with the code (RFC 6749 §4.1.2). */
  readonly state?: string;
  /** The resource the tokens are for (RFC 8707); their audience. */
  readonly resource: string;
  readonly scope?: string;
  /**
   * Set when the authorization request named no redirect_uri and the client's only registered
   * one was used (OAuth 2.1 §4.1.1): the token request may then leave it out (RFC 6749 §4.1.3).
   */
  readonly redirect_uri_omitted?: true;
  /** SHA-256 of the authorization code, set when the subject approves. */
  readonly code_hash?: string;
  /**
   * RFC 9449 §10: the thumbprint of the DPoP key the client named with `dpop_jkt`; the code is
   * then exchanged only with a DPoP proof made with that key.
   */
  readonly dpop_jkt?: string;
}

/**
 * A consent request (consent-v2 or OAuth authorization). It carries no authority while pending;
 * `request_token_hash` is the SHA-256 of the capability returned once to the client.
 */
export interface GrantRequestRecord {
  readonly grant_request_id: string;
  readonly request_token_hash: string;
  readonly client_id: string;
  readonly subject_id: string;
  readonly draft: GrantRequestDraft;
  /**
   * Where the browser goes after the decision: a registered URI of the client. Absent for a
   * back-channel client (registered with none, WIRE-NOTES §2.1): the decision then ends on the
   * provider's own page and the client learns the outcome at the exchange.
   */
  readonly redirect_uri?: string;
  readonly code_challenge: string;
  readonly status: GrantRequestStatus;
  /** The grant the approval created. */
  readonly grant_id?: string;
  readonly created_at: string;
  /** A request not decided and exchanged by then is dead. */
  readonly expires_at: string;
  readonly decided_at?: string;
  /** Present when the request came through the OAuth authorization endpoint. */
  readonly oauth?: OAuthRequestFacts;
  /** Present when the request is one element (child) of a grant package (WIRE-NOTES §4). */
  readonly package?: PackageMembership;
}

/** Which package a consent request belongs to, and which of its authorization_details it is. */
export interface PackageMembership {
  readonly package_id: string;
  /** The client's RFC 9396 `detail_id`, echoed in `pdpp_detail_outcomes`. */
  readonly detail_id: string;
  /** Position in the client's authorization_details array. */
  readonly index: number;
}
