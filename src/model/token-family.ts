/**
 * One refresh family: every access and refresh token descended from one exchange. It covers one
 * grant, or several (a grant package). Revoking it kills every refresh token in it.
 */
/**
 * Why a family ended, when it was not the person ending the grant, so that the client can be
 * told what happened to its access: `token_reuse` when a spent refresh token or authorization
 * code was presented again (treated as theft), `client_revoked` when the client gave the access
 * up itself (RFC 7009, or revoking its own grant).
 */
export type FamilyEndReason = 'token_reuse' | 'client_revoked';

export interface TokenFamilyRecord {
  readonly family_id: string;
  readonly client_id: string;
  readonly subject_id: string;
  readonly grant_ids: readonly string[];
  /** The resource (RFC 8707) its access tokens are for; absent means the HTTP API (the base URL). */
  readonly resource?: string;
  /** Set for a grant package: its tokens are package tokens over every grant of the family. */
  readonly package_id?: string;
  /**
   * RFC 9449 §5: the thumbprint of the DPoP key a public client's refresh tokens are bound to;
   * each refresh must come with a proof by that key. Absent for bearer families and for
   * confidential clients (their refresh tokens are bound to the client's own authentication).
   */
  readonly dpop_jkt?: string;
  readonly status: 'active' | 'revoked';
  readonly created_at: string;
  readonly revoked_at?: string;
  /** Why it was revoked, when not by the person (FamilyEndReason); kept from the first revocation. */
  readonly revoked_reason?: FamilyEndReason;
}

export interface RefreshTokenRecord {
  /** SHA-256 (base64url) of the refresh token. */
  readonly token_hash: string;
  readonly family_id: string;
  /** `rotated` once exchanged: presenting it again is theft (WIRE-NOTES §2.4). */
  readonly status: 'current' | 'rotated';
  readonly issued_at: string;
  readonly expires_at: string;
}

/**
 * A family's refresh tokens as one row (issue 27 item 4; docs/oauth.md, "Refresh tokens"): each
 * token names its family and generation and is the HMAC of both under the family's `seed`
 * (auth/refresh-chain.ts), so a rotation moves `generation` on in place of spending one row and
 * inserting another. The token of `generation` is the current one; every lower one was spent, and
 * presenting it is theft as for any rotated token.
 */
export interface RefreshChainRecord {
  readonly family_id: string;
  /** The HMAC key (256 bits, base64url) every token of the family is made with. */
  readonly seed: string;
  /** The generation of the family's current token. */
  readonly generation: number;
  /** When the current token was issued and when it expires. */
  readonly issued_at: string;
  readonly expires_at: string;
}
