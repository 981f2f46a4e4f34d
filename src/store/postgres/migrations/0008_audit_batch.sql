-- Appending to the audit log with a smaller, once-parsed batch (issue 23: PostgreSQL's CPU per
-- small read). 0004's ppx_append_audit took every event with its claim-key list inline, as json:
-- each `->>` re-read the whole element's text (json is text; 200 keys are ~4 KB), and the batch was
-- expanded twice, so a batch of twelve reads cost ~2.6 ms of the server's CPU. Here the events
-- carry only their key list's digest, each distinct list comes once in `key_sets`, both as jsonb
-- (parsed once), and the rows are expanded once. The key lists are stored before the audit log's
-- lock is taken (ON CONFLICT settles two batches storing one list), so the lock covers the clock
-- and the insert only.

CREATE FUNCTION ppx_append_audit_batch(lock_space integer, lock_key text, events jsonb, key_sets jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  last_ts bigint;
  lag bigint;
  new_lag bigint;
BEGIN
  INSERT INTO audit_key_sets (digest, keys)
    SELECT k ->> 'digest', k ->> 'keys' FROM jsonb_array_elements(key_sets) k
    ON CONFLICT (digest) DO NOTHING;
  PERFORM pg_advisory_xact_lock(lock_space, hashtext(lock_key));
  SELECT max_lag INTO lag FROM audit_clock WHERE one = 1;
  SELECT a.ts INTO last_ts FROM audit_events a ORDER BY a.seq DESC LIMIT 1;
  WITH b AS (
    SELECT x.n, x.e, (x.e ->> 'at_ms')::bigint AS at_ms
      FROM jsonb_array_elements(events) WITH ORDINALITY x (e, n)
  ), clocked AS (
    SELECT b.n, b.e, b.at_ms,
      greatest(coalesce(last_ts, 0), max(b.at_ms) OVER (ORDER BY b.n ROWS UNBOUNDED PRECEDING)) AS ts
    FROM b
  ), inserted AS (
    INSERT INTO audit_events (event_id, subject_id, grant_id, actor_kind, actor_id, action, outcome, detail,
        key_set, at, at_ms, ts)
      SELECT c.e ->> 'event_id', c.e ->> 'subject_id', c.e ->> 'grant_id', c.e ->> 'actor_kind',
        c.e ->> 'actor_id', c.e ->> 'action', c.e ->> 'outcome', c.e ->> 'detail',
        (SELECT k.set_id FROM audit_key_sets k WHERE k.digest = c.e ->> 'digest'),
        c.e ->> 'at', c.at_ms, c.ts
      FROM clocked c ORDER BY c.n
    RETURNING ts - at_ms AS lag
  )
  SELECT max(i.lag) INTO new_lag FROM inserted i;
  IF new_lag > lag THEN
    UPDATE audit_clock SET max_lag = new_lag WHERE one = 1;
  END IF;
END $$;

-- 0007's durable append, over the batch above.
CREATE PROCEDURE ppx_append_audit_batch_durably(lock_space integer, lock_key text, events jsonb, key_sets jsonb)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM ppx_append_audit_batch(lock_space, lock_key, events, key_sets);
  COMMIT;
  PERFORM pg_logical_emit_message(true, 'ppx', '');
END $$;
