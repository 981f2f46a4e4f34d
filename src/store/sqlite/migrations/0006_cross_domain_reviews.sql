-- Cross-domain transfer reviews (SPEC §6.5 `allow_with_review`, §13.2): when a grantee's read
-- would use claims from a domain outside the grant's, the subject reviews the transfer of the
-- mapped core traits. One row per review; as elsewhere the record is stored whole as JSON in
-- `body`, and the plain columns exist to be looked up or compared-and-set on (`status`).
-- No foreign keys: a review is part of the consent record and stays with the grant's audit.
CREATE TABLE cross_domain_reviews (
  review_id      TEXT PRIMARY KEY,
  grant_id       TEXT NOT NULL,
  subject_id     TEXT NOT NULL,
  -- JSON array of source domains, sorted.
  source_domains TEXT NOT NULL,
  -- The domain(s) the grantee uses the claims in, sorted and comma-joined.
  target_domain  TEXT NOT NULL,
  status         TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  created_at     TEXT NOT NULL,
  decided_at     TEXT,
  body           TEXT NOT NULL
) STRICT;
CREATE INDEX cross_domain_reviews_by_grant ON cross_domain_reviews (grant_id, created_at, review_id);
CREATE INDEX cross_domain_reviews_by_subject ON cross_domain_reviews (subject_id, status, created_at);
