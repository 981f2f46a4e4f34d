-- When the claims of each namespace of a profile last changed: the PDPP `freshness` of a stream
-- (WIRE-NOTES §4: per namespace and instance, "when claims there last changed"). Kept by
-- triggers, like the profile version (0002), so every write path and every process is covered.
-- A change in one namespace never moves another's time, so a grantee's freshness says nothing
-- about namespaces outside its grant. Times are the database's clock (UTC, milliseconds).
CREATE TABLE namespace_changes (
  profile_id TEXT NOT NULL,
  namespace  TEXT NOT NULL,
  changed_at TEXT NOT NULL,
  PRIMARY KEY (profile_id, namespace)
) STRICT, WITHOUT ROWID;

-- Existing profiles: the best known time is the profile's last update.
INSERT INTO namespace_changes (profile_id, namespace, changed_at)
  SELECT DISTINCT c.profile_id, c.namespace, p.updated_at
  FROM claims c JOIN profiles p ON p.profile_id = c.profile_id;

CREATE TRIGGER claims_namespace_changed_on_insert AFTER INSERT ON claims
BEGIN
  INSERT INTO namespace_changes (profile_id, namespace, changed_at)
    VALUES (NEW.profile_id, NEW.namespace, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace) DO UPDATE SET changed_at = excluded.changed_at;
END;

CREATE TRIGGER claims_namespace_changed_on_update AFTER UPDATE ON claims
BEGIN
  INSERT INTO namespace_changes (profile_id, namespace, changed_at)
    VALUES (NEW.profile_id, NEW.namespace, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace) DO UPDATE SET changed_at = excluded.changed_at;
  INSERT INTO namespace_changes (profile_id, namespace, changed_at)
    VALUES (OLD.profile_id, OLD.namespace, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace) DO UPDATE SET changed_at = excluded.changed_at;
END;

-- A deleted claim changes its namespace, unless the whole profile is going (then nothing is
-- left to be fresh: see the profiles trigger below).
CREATE TRIGGER claims_namespace_changed_on_delete AFTER DELETE ON claims
WHEN EXISTS (SELECT 1 FROM profiles WHERE profile_id = OLD.profile_id)
BEGIN
  INSERT INTO namespace_changes (profile_id, namespace, changed_at)
    VALUES (OLD.profile_id, OLD.namespace, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace) DO UPDATE SET changed_at = excluded.changed_at;
END;

CREATE TRIGGER profiles_namespace_changes_on_delete AFTER DELETE ON profiles
BEGIN
  DELETE FROM namespace_changes WHERE profile_id = OLD.profile_id;
END;
