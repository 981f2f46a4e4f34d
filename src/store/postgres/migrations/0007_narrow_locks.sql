-- Writes without one lock for the whole schema (issue 23, item 2; docs/store.md, "Concurrency,
-- operation by operation"). Three things here took a row or a lock every writer shared:
--
-- 1. The profile version came from the change_counter row: every claim write of every subject
--    updated that one row and held its row lock to COMMIT. A version is only ever compared for
--    equality and must never be reused, so a SEQUENCE gives it: nextval takes no lock and is never
--    rolled back. (change_counter stays, unused, for a store opened by an older build.)
-- 2. Appending to the audit log took the schema's write lock, so every read waited for every
--    write. ppx_append_audit now takes the audit log's own lock (its lock_space argument, from
--    postgres/locks.ts), and ppx_append_audit_durably holds it only for the insert: it commits
--    that asynchronously (the lock goes with the COMMIT, before the WAL flush), then makes the
--    commit durable with a second, synchronous commit that flushes the WAL up to itself, outside
--    any lock. The caller is answered only after that flush, as before.
-- 3. Caches on every instance (postgres/record-cache.ts): a row trigger on each cached table
--    notifies the schema's channel with what changed ('g' grant id, 'c' client id, 's' setting
--    name, 'k' for the signing keys, 'p' profile id and subject id). PostgreSQL delivers a
--    notification only when its transaction commits, in commit order, to every listener.

CREATE SEQUENCE profile_versions;
SELECT setval('profile_versions', greatest(1, (SELECT n FROM change_counter WHERE id = 1)));

CREATE OR REPLACE FUNCTION ppx_bump_versions(VARIADIC profile_ids text[]) RETURNS void LANGUAGE sql AS $$
  UPDATE profiles SET version = nextval('profile_versions') WHERE profile_id = ANY (profile_ids)
$$;

CREATE PROCEDURE ppx_append_audit_durably(lock_space integer, lock_key text, events json)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM ppx_append_audit(lock_space, lock_key, events);
  COMMIT;
  -- A commit that wrote no WAL of its own is not flushed even when synchronous: this message is
  -- WAL of this transaction, so its COMMIT (synchronous) waits for the flush, which covers the
  -- events committed above.
  PERFORM pg_logical_emit_message(true, 'ppx', '');
END $$;

-- The schema's notification channel: 'ppx_' and the md5 of the schema's name (change-notices.ts).
CREATE FUNCTION ppx_cache_notice() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  channel text := 'ppx_' || md5(TG_TABLE_SCHEMA);
  r record;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  IF TG_TABLE_NAME = 'grants' THEN
    PERFORM pg_notify(channel, 'g' || r.grant_id);
  ELSIF TG_TABLE_NAME = 'clients' THEN
    PERFORM pg_notify(channel, 'c' || r.client_id);
  ELSIF TG_TABLE_NAME = 'settings' THEN
    PERFORM pg_notify(channel, 's' || r.name);
  ELSIF TG_TABLE_NAME = 'signing_keys' THEN
    PERFORM pg_notify(channel, 'k');
  ELSIF TG_TABLE_NAME = 'profiles' THEN
    PERFORM pg_notify(channel, 'p' || r.profile_id || chr(10) || r.subject_id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER grants_cache_notice AFTER INSERT OR UPDATE OR DELETE ON grants
  FOR EACH ROW EXECUTE FUNCTION ppx_cache_notice();
CREATE TRIGGER clients_cache_notice AFTER INSERT OR UPDATE OR DELETE ON clients
  FOR EACH ROW EXECUTE FUNCTION ppx_cache_notice();
CREATE TRIGGER settings_cache_notice AFTER INSERT OR UPDATE OR DELETE ON settings
  FOR EACH ROW EXECUTE FUNCTION ppx_cache_notice();
CREATE TRIGGER signing_keys_cache_notice AFTER INSERT OR UPDATE OR DELETE ON signing_keys
  FOR EACH ROW EXECUTE FUNCTION ppx_cache_notice();
CREATE TRIGGER profiles_cache_notice AFTER INSERT OR UPDATE OR DELETE ON profiles
  FOR EACH ROW EXECUTE FUNCTION ppx_cache_notice();
