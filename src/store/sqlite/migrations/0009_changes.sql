-- The change-event outbox (docs/store.md, "Change events"): one row per change to a person's
-- data, inserted by the write's own transaction, so an acknowledged write always has its row and
-- a rolled-back one never does. AUTOINCREMENT: a seq is never reused, even after the highest row
-- was pruned; with one writer at a time, and the sequence update
-- rolled back with the transaction that made it, the seqs are consecutive in commit order.
-- `ids` and `grants` are JSON arrays/objects of ids; no claim value is ever stored here.
CREATE TABLE changes (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  at         TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  ids        TEXT NOT NULL,
  grants     TEXT NOT NULL
) STRICT;

-- "After seq N" is the primary key; "after seq N for one subject" is this index.
CREATE INDEX changes_by_subject ON changes (subject_id, seq);

-- A grant's expiry is announced once: the first operation to find it past its expiry inserts
-- here (INSERT OR IGNORE), and only the one whose insert took appends the event.
CREATE TABLE grant_expiries (
  grant_id     TEXT PRIMARY KEY,
  announced_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- An event, once committed, is never changed: a subscriber that saw seq N and one that replays
-- it later must see the same event. (Old rows may one day be pruned; AUTOINCREMENT keeps their
-- seqs from coming back.)
CREATE TRIGGER changes_no_update BEFORE UPDATE ON changes
BEGIN
  SELECT RAISE(ABORT, 'change events are never updated');
END;
