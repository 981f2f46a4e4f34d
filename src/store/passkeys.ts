import type { PasskeyRecord, PasskeyTicket, PasskeyTicketKind } from '../model/passkey.ts';

// The passkey side of the store contract (docs/passkeys.md; SQLite migration 0018, PostgreSQL
// 0013): people's registered WebAuthn credentials, and the tickets that hold a ceremony's
// challenge or a one-time setup link between its two steps. StoreReader and StoreWriter in
// store.ts extend these interfaces; the conventions stated there hold here too. Credentials are
// account data (moved by `ppx migrate`); tickets are transient (not moved, pruned once expired).
// No write here appends a change event: nothing in a profile changes.

export interface PasskeyReader {
  /** A subject's passkeys, oldest `created_at` first (ties by credential_id). */
  listPasskeys(subjectId: string): Promise<readonly PasskeyRecord[]>;
  /** A passkey by credential id, whoever owns it. */
  getPasskey(credentialId: string): Promise<PasskeyRecord | undefined>;
  /** A ticket by hash while it is live at `now`; undefined when missing, taken or expired. */
  getPasskeyTicket(
    ticketHash: string,
    kind: PasskeyTicketKind,
    now: string,
  ): Promise<PasskeyTicket | undefined>;
}

export interface PasskeyWriter {
  /** Inserts a passkey; a taken credential_id throws IdConflictError. */
  insertPasskey(passkey: PasskeyRecord): Promise<void>;
  /**
   * Compare-and-set after a verified sign-in: sets the counter to `counter` and `last_used_at`
   * only while the stored counter is still `expected`. False when the passkey is missing or
   * another sign-in moved the counter first (of two uses of one counter value, one succeeds).
   */
  usePasskey(credentialId: string, expected: number, counter: number, at: string): Promise<boolean>;
  /** Removes one of a subject's passkeys; false when that subject has no such passkey. */
  deletePasskey(subjectId: string, credentialId: string): Promise<boolean>;
  /** Stores a ticket; a taken hash throws IdConflictError. */
  putPasskeyTicket(ticket: PasskeyTicket): Promise<void>;
  /**
   * Takes (removes and returns) a ticket of `kind` live at `now`: undefined when missing, of
   * another kind, expired or already taken. Of two concurrent takes, exactly one gets it.
   */
  takePasskeyTicket(
    ticketHash: string,
    kind: PasskeyTicketKind,
    now: string,
  ): Promise<PasskeyTicket | undefined>;
  /** Removes up to `limit` tickets that expired before `before`; returns how many. */
  prunePasskeyTickets(before: string, limit: number): Promise<number>;
}
