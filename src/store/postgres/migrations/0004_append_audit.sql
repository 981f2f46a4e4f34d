-- Appending to the audit log in one statement. Every read appends an event; as separate statements
-- (BEGIN with the write lock, the log's clock, its newest event, each new key list, the insert,
-- COMMIT) that was most of a small read's round trips. ppx_append_audit does it all in one call,
-- which runs in its own implicit transaction (or inside the caller's), under the store's write lock
-- (postgres-store.ts; taking it again inside a transaction that holds it is a no-op).
--
-- `events` is a JSON array of objects {event_id, subject_id, grant_id, actor_kind, actor_id,
-- action, outcome, detail, at, at_ms, digest, keys}: `digest` and `keys` (the claim-key list as
-- JSON text, and its sha256) are null for an event without keys. The seqs follow the array's
-- order; `ts` is the log's clock (0011 on SQLite: the largest at_ms so far), `max_lag` the largest
-- ts - at_ms ever seen.
-- The events of a batch in order, each with its clock reading.
CREATE FUNCTION ppx_audit_clocked(events json, last_ts bigint)
RETURNS TABLE (n bigint, e json, at_ms bigint, ts bigint) LANGUAGE sql STABLE AS $$
  SELECT i.n, i.e, i.at_ms,
    greatest(coalesce(last_ts, 0), max(i.at_ms) OVER (ORDER BY i.n ROWS UNBOUNDED PRECEDING))
  FROM (SELECT x.ordinality AS n, x.value AS e, (x.value ->> 'at_ms')::bigint AS at_ms
          FROM json_array_elements(events) WITH ORDINALITY x) i
$$;

CREATE FUNCTION ppx_append_audit(lock_space integer, lock_key text, events json) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  last_ts bigint;
  lag bigint;
  new_lag bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(lock_space, hashtext(lock_key));
  SELECT max_lag INTO lag FROM audit_clock WHERE one = 1;
  SELECT a.ts INTO last_ts FROM audit_events a ORDER BY a.seq DESC LIMIT 1;
  INSERT INTO audit_key_sets (digest, keys)
    SELECT DISTINCT ON (x ->> 'digest') x ->> 'digest', x ->> 'keys'
      FROM json_array_elements(events) x WHERE x ->> 'digest' IS NOT NULL
    ON CONFLICT (digest) DO NOTHING;
  INSERT INTO audit_events (event_id, subject_id, grant_id, actor_kind, actor_id, action, outcome, detail,
      key_set, at, at_ms, ts)
    SELECT b.e ->> 'event_id', b.e ->> 'subject_id', b.e ->> 'grant_id', b.e ->> 'actor_kind',
      b.e ->> 'actor_id', b.e ->> 'action', b.e ->> 'outcome', b.e ->> 'detail',
      (SELECT k.set_id FROM audit_key_sets k WHERE k.digest = b.e ->> 'digest'),
      b.e ->> 'at', b.at_ms, b.ts
    FROM ppx_audit_clocked(events, last_ts) b ORDER BY b.n;
  SELECT max(b.ts - b.at_ms) INTO new_lag FROM ppx_audit_clocked(events, last_ts) b;
  IF new_lag > lag THEN
    UPDATE audit_clock SET max_lag = new_lag WHERE one = 1;
  END IF;
END $$;
