/** A person who owns a profile and signs in to the consent and review pages. */
export interface SubjectRecord {
  readonly subject_id: string;
  /** Unique, case-folded sign-in name. */
  readonly username: string;
  /** A memory-hard hash (`scrypt$N$r$p$salt$hash`), never the password. */
  readonly password_hash: string;
  readonly created_at: string;
}

/** A signed-in browser session; the cookie carries the secret, the store only its SHA-256. */
export interface SessionRecord {
  readonly session_hash: string;
  readonly subject_id: string;
  /**
   * SHA-256 of the session's anti-CSRF token, never the token: the token is derived from the
   * session secret (operations/accounts/subjects-and-sessions.ts#csrfTokenOf) and sent back in every form.
   */
  readonly csrf_token: string;
  readonly created_at: string;
  readonly expires_at: string;
}
