-- Signed consent receipts (docs/receipts.md; store/consent-receipts.ts): one row per decision about
-- a grant, written in the decision's transaction. `body` is the record as JSON (the compact JWS in
-- it); the other columns are what it is found by. Kept like the audit log: moved by `ppx migrate`,
-- and no foreign key, so that a receipt outlives its grant and the profile.
CREATE TABLE consent_receipts (
  receipt_id TEXT NOT NULL PRIMARY KEY,
  subject_id TEXT NOT NULL,
  grant_id   TEXT,
  decision   TEXT NOT NULL,
  issued_at  TEXT NOT NULL,
  body       TEXT NOT NULL
) STRICT;
CREATE INDEX consent_receipts_by_subject ON consent_receipts (subject_id, issued_at);
CREATE INDEX consent_receipts_by_grant ON consent_receipts (grant_id, issued_at);
