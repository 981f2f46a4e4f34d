-- Write-back (SPEC §6.6, §9 propose_updates / confirm_updates) and the history of every claim.
-- As elsewhere, records are stored whole as JSON in `body`; the plain columns exist to be
-- filtered, ordered or compared-and-set on, and the writes keep `body` in step with them.

-- Every proposal a grantee made, whatever became of it: `pending` until the subject decides
-- (`confirmed` or `rejected`), or `applied` when the grant's writeback policy let it through.
-- Proposals belong to their profile: deleting the profile deletes them.
CREATE TABLE proposals (
  proposal_id TEXT PRIMARY KEY,
  profile_id  TEXT NOT NULL REFERENCES profiles (profile_id) ON DELETE CASCADE,
  grant_id    TEXT NOT NULL,
  client_id   TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'rejected', 'applied')),
  created_at  TEXT NOT NULL,
  body        TEXT NOT NULL
) STRICT;
CREATE INDEX proposals_by_profile ON proposals (profile_id, status);

-- The history of each claim: one entry per change, the claim as it was afterwards (null once
-- deleted). No foreign key: the history outlives the claims it describes. `at_ms` holds the
-- instant so `since` compares times, not strings with different offsets.
CREATE TABLE claim_history (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  claim_id   TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  at         TEXT NOT NULL,
  at_ms      INTEGER NOT NULL,
  body       TEXT NOT NULL
) STRICT;
CREATE INDEX claim_history_by_profile ON claim_history (profile_id, seq);
CREATE INDEX claim_history_by_claim ON claim_history (profile_id, claim_id, seq);

CREATE TRIGGER claim_history_no_update BEFORE UPDATE ON claim_history
BEGIN
  SELECT RAISE(ABORT, 'claim_history is append-only');
END;

CREATE TRIGGER claim_history_no_delete BEFORE DELETE ON claim_history
BEGIN
  SELECT RAISE(ABORT, 'claim_history is append-only');
END;

-- Claims stored before this migration get one `imported` entry each, at their profile's
-- `updated_at`, so a diff over time starts from what the profile held.
INSERT INTO claim_history (claim_id, profile_id, at, at_ms, body)
SELECT c.claim_id, c.profile_id, p.updated_at,
  CAST(round((julianday(p.updated_at) - 2440587.5) * 86400000) AS INTEGER),
  json_object('claim_id', c.claim_id, 'profile_id', c.profile_id, 'at', p.updated_at,
    'claim', json(c.body), 'change', 'imported',
    'actor', json_object('kind', 'operator', 'id', 'migration'))
FROM claims c JOIN profiles p ON p.profile_id = c.profile_id
ORDER BY c.profile_id, c.claim_id;
