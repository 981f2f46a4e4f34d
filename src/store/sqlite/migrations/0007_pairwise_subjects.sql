-- Pairwise subject ids a client has been shown, so that the client can name the subject by that
-- id when it asks for consent again (POST /v1/consent/request). A row is written when a grant is
-- created (the only way a client comes to see a subject's pairwise id). The id is an HMAC and
-- cannot be inverted; this is the lookup. Scoped by client: another client's pairwise id for the
-- same subject finds nothing.
CREATE TABLE pairwise_subjects (
  client_id   TEXT NOT NULL,
  pairwise_id TEXT NOT NULL,
  subject_id  TEXT NOT NULL,
  PRIMARY KEY (client_id, pairwise_id)
) STRICT, WITHOUT ROWID;
