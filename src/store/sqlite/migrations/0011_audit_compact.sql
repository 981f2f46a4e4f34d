-- The audit log, compact and indexed for every filter the API offers (issue 10, item 10;
-- docs/audit.md).
--
-- An event used to carry its whole body as JSON, with the list of claim keys it read: 1.3 KB per
-- read of the demo profile, 59 KB per read of a 2,000-claim one. Now an event is a row of columns,
-- and a list of claim keys is stored once in audit_key_sets, which events refer to by number: the
-- reads of one grant name the same keys again and again. `digest` is the SHA-256 of the list's
-- JSON text (base64url), by which a writer finds a list already stored; lists carried over from
-- 0001's bodies have none (SQLite has no SHA-256), so a later event naming the same keys stores
-- them once more, under a digest.
CREATE TABLE audit_key_sets (
  set_id INTEGER PRIMARY KEY,
  digest TEXT UNIQUE,
  keys   TEXT NOT NULL
) STRICT;

-- `ts` is the log's own clock: the largest `at_ms` up to and including this event, so it never
-- decreases as `seq` grows. `at` is when the request was made and can run a few milliseconds behind
-- an event logged before it (requests finish in their own order); `ts` lets a `since`/`until` bound
-- be found by a binary search over `seq` instead of a scan (sqlite/audit-queries.ts). The largest
-- lag ever seen (`ts - at_ms`) is kept in audit_clock, so the search for `until` stays exact.
CREATE TABLE audit_events_v2 (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id   TEXT NOT NULL UNIQUE,
  subject_id TEXT NOT NULL,
  grant_id   TEXT,
  actor_kind TEXT NOT NULL,
  actor_id   TEXT NOT NULL,
  action     TEXT NOT NULL,
  outcome    TEXT NOT NULL,
  detail     TEXT,
  key_set    INTEGER REFERENCES audit_key_sets (set_id),
  at         TEXT NOT NULL,
  at_ms      INTEGER NOT NULL,
  ts         INTEGER NOT NULL
) STRICT;

-- `key_generation` moves whenever key lists are removed, so a writer that remembers which lists it
-- stored (sqlite/audit-queries.ts) knows when to forget them.
CREATE TABLE audit_clock (
  one            INTEGER PRIMARY KEY CHECK (one = 1),
  max_lag        INTEGER NOT NULL,
  key_generation INTEGER NOT NULL DEFAULT 0
) STRICT;

-- Events may be removed only by pruning (`ppx audit prune`, the retention setting): oldest first,
-- everything before a horizon that only moves forward, never one event picked out.
CREATE TABLE audit_prune_horizon (
  one       INTEGER PRIMARY KEY CHECK (one = 1),
  before_ms INTEGER NOT NULL
) STRICT;
INSERT INTO audit_prune_horizon (one, before_ms) VALUES (1, 0);

-- Carry the old log over, in its order.
CREATE TEMP TABLE legacy_keys AS
  SELECT DISTINCT json_extract(body, '$.claim_keys') AS keys FROM audit_events
  WHERE json_array_length(json_extract(body, '$.claim_keys')) > 0;
INSERT INTO audit_key_sets (keys) SELECT keys FROM legacy_keys;
DROP TABLE legacy_keys;
CREATE TEMP TABLE legacy_set_ids AS SELECT set_id, keys FROM audit_key_sets;
CREATE INDEX temp.legacy_set_ids_by_keys ON legacy_set_ids (keys);

INSERT INTO audit_events_v2
  (seq, event_id, subject_id, grant_id, actor_kind, actor_id, action, outcome, detail, key_set, at,
   at_ms, ts)
SELECT e.seq, e.event_id, e.subject_id, e.grant_id, json_extract(e.body, '$.actor.kind'), e.actor_id,
       e.action, json_extract(e.body, '$.outcome'), json_extract(e.body, '$.detail'),
       (SELECT k.set_id FROM legacy_set_ids k WHERE k.keys = json_extract(e.body, '$.claim_keys')),
       e.at, e.at_ms, max(e.at_ms) OVER (ORDER BY e.seq ROWS UNBOUNDED PRECEDING)
FROM audit_events e ORDER BY e.seq;
DROP TABLE legacy_set_ids;

INSERT INTO audit_clock (one, max_lag)
  VALUES (1, coalesce((SELECT max(ts - at_ms) FROM audit_events_v2), 0));

DROP TABLE audit_events;
ALTER TABLE audit_events_v2 RENAME TO audit_events;

-- One index per filter, each ending in seq, so that a listing with any one of them (and the
-- subject) reads its rows in order, either way, from where its cursor points.
CREATE INDEX audit_by_subject ON audit_events (subject_id, seq);
CREATE INDEX audit_by_grant ON audit_events (subject_id, grant_id, seq);
CREATE INDEX audit_by_actor ON audit_events (subject_id, actor_id, seq);
CREATE INDEX audit_by_action ON audit_events (subject_id, action, seq);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN OLD.at_ms >= (SELECT before_ms FROM audit_prune_horizon)
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only: only events before the prune horizon may go');
END;

-- Spent refresh tokens are pruned with the log (an expired one, or one of a revoked family, can
-- never be exchanged again); this finds the expired ones without reading every body.
ALTER TABLE refresh_tokens ADD COLUMN expires_at TEXT;
UPDATE refresh_tokens SET expires_at = json_extract(body, '$.expires_at');
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
