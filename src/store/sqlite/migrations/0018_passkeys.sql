-- Passkeys (docs/passkeys.md; PostgreSQL 0013_passkeys.sql). `passkeys`: each registered WebAuthn
-- credential, its public key and the signature counter last seen; account data, moved by
-- `ppx migrate`. `passkey_tickets`: a ceremony's challenge or a one-time setup link, found by the
-- hash of its secret, single use (taken by DELETE) and short-lived; transient, not moved. No
-- foreign key to subjects: subjects are never removed, and a ticket may name none.
CREATE TABLE passkeys (
  credential_id TEXT PRIMARY KEY,
  subject_id    TEXT NOT NULL,
  public_key    TEXT NOT NULL,
  counter       INTEGER NOT NULL,
  transports    TEXT NOT NULL,
  name          TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  last_used_at  TEXT
) STRICT;
CREATE INDEX passkeys_by_subject ON passkeys (subject_id, created_at, credential_id);

CREATE TABLE passkey_tickets (
  ticket_hash TEXT PRIMARY KEY,
  kind        TEXT NOT NULL,
  subject_id  TEXT,
  body        TEXT NOT NULL,
  expires_at  TEXT NOT NULL
) STRICT;
CREATE INDEX passkey_tickets_by_expiry ON passkey_tickets (expires_at);
