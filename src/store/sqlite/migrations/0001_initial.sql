-- Initial schema. Records are stored whole as JSON in `body` so they round-trip exactly; the
-- plain columns beside it exist only to be filtered, ordered or constrained on.

CREATE TABLE profiles (
  profile_id     TEXT PRIMARY KEY,
  subject_id     TEXT NOT NULL UNIQUE,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  default_policy TEXT
) STRICT;

CREATE TABLE claims (
  claim_id   TEXT PRIMARY KEY,
  profile_id TEXT NOT NULL REFERENCES profiles (profile_id) ON DELETE CASCADE,
  namespace  TEXT NOT NULL,
  key        TEXT NOT NULL,
  body       TEXT NOT NULL
) STRICT;
CREATE INDEX claims_by_profile ON claims (profile_id, namespace, key, claim_id);

CREATE TABLE modifiers (
  modifier_id TEXT PRIMARY KEY,
  profile_id  TEXT NOT NULL REFERENCES profiles (profile_id) ON DELETE CASCADE,
  body        TEXT NOT NULL
) STRICT;
CREATE INDEX modifiers_by_profile ON modifiers (profile_id, modifier_id);

-- No foreign key to profiles: grants outlive a deleted profile (they are evidence of consent).
CREATE TABLE grants (
  grant_id    TEXT PRIMARY KEY,
  subject_id  TEXT NOT NULL,
  grantee_id  TEXT NOT NULL,
  profile_id  TEXT NOT NULL,
  status      TEXT NOT NULL,
  granted_at  TEXT NOT NULL,
  expires_at  TEXT,
  revoked_at  TEXT,
  access_mode TEXT NOT NULL,
  body        TEXT NOT NULL
) STRICT;
CREATE INDEX grants_by_subject ON grants (subject_id, granted_at DESC, grant_id);
CREATE INDEX grants_by_grantee ON grants (grantee_id);

CREATE TABLE clients (
  client_id  TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  body       TEXT NOT NULL
) STRICT;

CREATE TABLE signing_keys (
  kid        TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  body       TEXT NOT NULL
) STRICT;

CREATE TABLE settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- `at_ms` is `at` as epoch milliseconds, so since/until compare instants rather than strings
-- (RFC 3339 text with different offsets does not sort chronologically).
CREATE TABLE audit_events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id   TEXT NOT NULL UNIQUE,
  subject_id TEXT NOT NULL,
  grant_id   TEXT,
  actor_id   TEXT NOT NULL,
  action     TEXT NOT NULL,
  at         TEXT NOT NULL,
  at_ms      INTEGER NOT NULL,
  body       TEXT NOT NULL
) STRICT;
CREATE INDEX audit_by_subject ON audit_events (subject_id, seq);
CREATE INDEX audit_by_grant ON audit_events (subject_id, grant_id, seq);
CREATE INDEX audit_by_actor ON audit_events (subject_id, actor_id, seq);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;
