-- Passkeys (docs/passkeys.md; SQLite 0018_passkeys.sql). `passkeys`: each registered WebAuthn
-- credential, its public key and the signature counter last seen; account data, moved by
-- `ppx migrate`. `passkey_tickets`: a ceremony's challenge or a one-time setup link, found by the
-- hash of its secret, single use (taken by DELETE … RETURNING) and short-lived; transient, not
-- moved. No foreign key to subjects: subjects are never removed, and a ticket may name none.
CREATE TABLE passkeys (
  credential_id text COLLATE "C" PRIMARY KEY,
  subject_id    text COLLATE "C" NOT NULL,
  public_key    text NOT NULL,
  counter       bigint NOT NULL,
  transports    text NOT NULL,
  name          text NOT NULL,
  created_at    text COLLATE "C" NOT NULL,
  last_used_at  text
);
CREATE INDEX passkeys_by_subject ON passkeys (subject_id, created_at, credential_id);

CREATE TABLE passkey_tickets (
  ticket_hash text COLLATE "C" PRIMARY KEY,
  kind        text NOT NULL,
  subject_id  text COLLATE "C",
  body        text NOT NULL,
  expires_at  text COLLATE "C" NOT NULL
);
CREATE INDEX passkey_tickets_by_expiry ON passkey_tickets (expires_at);
