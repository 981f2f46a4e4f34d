-- The consent side: subjects who sign in, their browser sessions, consent requests, and refresh
-- token families. As in 0001, records are stored whole as JSON in `body`; the plain columns
-- exist to be looked up, constrained, or compared-and-set on (grant_requests.status,
-- token_families.status, refresh_tokens.status), and the writes keep `body` in step with them.

CREATE TABLE subjects (
  subject_id TEXT PRIMARY KEY,
  -- Case-folded by the caller; stored as given.
  username   TEXT NOT NULL UNIQUE,
  body       TEXT NOT NULL
) STRICT;

-- No foreign keys to subjects or clients here: the store applies no policy, and a request or
-- session is checked against its subject and client by operations/ when it is used.
CREATE TABLE sessions (
  session_hash TEXT PRIMARY KEY,
  subject_id   TEXT NOT NULL,
  expires_at   TEXT NOT NULL,
  body         TEXT NOT NULL
) STRICT;
CREATE INDEX sessions_by_subject ON sessions (subject_id);

CREATE TABLE grant_requests (
  grant_request_id TEXT PRIMARY KEY,
  client_id        TEXT NOT NULL,
  subject_id       TEXT NOT NULL,
  status           TEXT NOT NULL,
  expires_at       TEXT NOT NULL,
  body             TEXT NOT NULL
) STRICT;
CREATE INDEX grant_requests_by_subject ON grant_requests (subject_id, status);

CREATE TABLE token_families (
  family_id  TEXT PRIMARY KEY,
  client_id  TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  status     TEXT NOT NULL,
  body       TEXT NOT NULL
) STRICT;

-- A family covers one grant or several (a grant package); this finds the families of a grant.
-- `body.grant_ids` keeps the order the family was created with.
CREATE TABLE family_grants (
  family_id TEXT NOT NULL REFERENCES token_families (family_id) ON DELETE CASCADE,
  grant_id  TEXT NOT NULL,
  PRIMARY KEY (family_id, grant_id)
) STRICT;
CREATE INDEX family_grants_by_grant ON family_grants (grant_id, family_id);

CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  family_id  TEXT NOT NULL REFERENCES token_families (family_id) ON DELETE CASCADE,
  status     TEXT NOT NULL,
  body       TEXT NOT NULL
) STRICT;
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
