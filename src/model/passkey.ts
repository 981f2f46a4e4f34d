/**
 * A passkey a person registered (WebAuthn public-key credential; docs/passkeys.md). The private
 * key never leaves the person's authenticator; the provider keeps the public key and the
 * signature counter it last saw.
 */
export interface PasskeyRecord {
  /** The credential id, base64url, as the authenticator made it. */
  readonly credential_id: string;
  readonly subject_id: string;
  /** The COSE public key, base64url. */
  readonly public_key: string;
  /** The signature counter last verified (0 for authenticators that keep none). */
  readonly counter: number;
  /** Transport hints the browser reported (`internal`, `hybrid`, `usb`, …). */
  readonly transports: readonly string[];
  /** The person's name for it ("Laptop", say). */
  readonly name: string;
  readonly created_at: string;
  /** Absent until it is first used to sign in. */
  readonly last_used_at?: string;
}

/**
 * What a passkey ceremony or a one-time link keeps between its two steps: a single-use,
 * short-lived row found by the hash of its secret (the challenge, or the link's token).
 */
export interface PasskeyTicket {
  readonly ticket_hash: string;
  readonly kind: PasskeyTicketKind;
  /** The account it is for; absent for a sign-in whose account is not known yet. */
  readonly subject_id?: string;
  /** The kind's own facts (JSON): the challenge, the username to create, what it is bound to. */
  readonly body: string;
  readonly expires_at: string;
}

export type PasskeyTicketKind = 'registration' | 'authentication' | 'setup_link' | 'fresh_sign_in';
