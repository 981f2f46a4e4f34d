-- When claims of each *shape* of a profile last changed (issue 10, leak 2). A shape is what of a
-- claim decides who may see it (model/claim.ts#ClaimShape, read by policy/visibility.ts): its
-- namespace, key, the domains a core claim names, its provenance kind and its review status.
-- Two claims of one shape are visible under exactly the same grants, so a grant's freshness is the
-- latest time among the shapes it can see: a change to a claim hidden from it (another key of a
-- granted namespace, a claim of another domain) never moves a time its grantee is told, while a
-- change to one it sees always does. It replaces namespace_changes (0008), which moved for every
-- claim of a namespace.
--
-- A write touches the shape the claim had and the shape it has: an insert its new shape, an update
-- both (so a claim moved out of a grant's sight moves that grant's time, one moved into it too), a
-- delete the shape it had (a tombstone: the row outlives the claim, so deleting a visible claim
-- still moves the time, and deleting a hidden one moves nothing visible). Rows are few: one per
-- shape ever held, not per claim or per write. Kept by triggers, like the profile version (0002),
-- so every write path and every process is covered; the database's clock (UTC, milliseconds),
-- never moving a row back. Removed with the profile.
--
-- `domains` is a core claim's applicability.domains as JSON when it names some, else '' (it belongs
-- to every domain; a domain namespace's claims belong to their namespace whatever they name);
-- `review_status` is '' when the claim has none.
CREATE TABLE claim_changes (
  profile_id    TEXT NOT NULL,
  namespace     TEXT NOT NULL,
  key           TEXT NOT NULL,
  domains       TEXT NOT NULL,
  source_kind   TEXT NOT NULL,
  review_status TEXT NOT NULL,
  changed_at    TEXT NOT NULL,
  PRIMARY KEY (profile_id, namespace, key, domains, source_kind, review_status)
) STRICT, WITHOUT ROWID;

-- Existing profiles: each claim's shape at its namespace's last change (0008), so no grant's time
-- moves at the migration. Claims deleted before it leave no shape; their namespace's time stays
-- with the claims still there.
INSERT INTO claim_changes (profile_id, namespace, key, domains, source_kind, review_status, changed_at)
  SELECT c.profile_id, c.namespace, c.key,
    CASE WHEN c.namespace = 'core' AND json_array_length(c.body, '$.applicability.domains') > 0
      THEN json_extract(c.body, '$.applicability.domains') ELSE '' END,
    coalesce(json_extract(c.body, '$.source.kind'), ''),
    coalesce(json_extract(c.body, '$.review.review_status'), ''),
    coalesce(n.changed_at, p.updated_at)
  FROM claims c
  JOIN profiles p ON p.profile_id = c.profile_id
  LEFT JOIN namespace_changes n ON n.profile_id = c.profile_id AND n.namespace = c.namespace
  WHERE true
  ON CONFLICT (profile_id, namespace, key, domains, source_kind, review_status)
    DO UPDATE SET changed_at = max(changed_at, excluded.changed_at);

DROP TRIGGER claims_namespace_changed_on_insert;
DROP TRIGGER claims_namespace_changed_on_update;
DROP TRIGGER claims_namespace_changed_on_delete;
DROP TRIGGER profiles_namespace_changes_on_delete;
DROP TABLE namespace_changes;

CREATE TRIGGER claims_shape_changed_on_insert AFTER INSERT ON claims
BEGIN
  INSERT INTO claim_changes (profile_id, namespace, key, domains, source_kind, review_status, changed_at)
    VALUES (NEW.profile_id, NEW.namespace, NEW.key,
      CASE WHEN NEW.namespace = 'core' AND json_array_length(NEW.body, '$.applicability.domains') > 0
        THEN json_extract(NEW.body, '$.applicability.domains') ELSE '' END,
      coalesce(json_extract(NEW.body, '$.source.kind'), ''),
      coalesce(json_extract(NEW.body, '$.review.review_status'), ''),
      strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace, key, domains, source_kind, review_status)
      DO UPDATE SET changed_at = max(changed_at, excluded.changed_at);
END;

CREATE TRIGGER claims_shape_changed_on_update AFTER UPDATE ON claims
BEGIN
  INSERT INTO claim_changes (profile_id, namespace, key, domains, source_kind, review_status, changed_at)
    VALUES (OLD.profile_id, OLD.namespace, OLD.key,
      CASE WHEN OLD.namespace = 'core' AND json_array_length(OLD.body, '$.applicability.domains') > 0
        THEN json_extract(OLD.body, '$.applicability.domains') ELSE '' END,
      coalesce(json_extract(OLD.body, '$.source.kind'), ''),
      coalesce(json_extract(OLD.body, '$.review.review_status'), ''),
      strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace, key, domains, source_kind, review_status)
      DO UPDATE SET changed_at = max(changed_at, excluded.changed_at);
  INSERT INTO claim_changes (profile_id, namespace, key, domains, source_kind, review_status, changed_at)
    VALUES (NEW.profile_id, NEW.namespace, NEW.key,
      CASE WHEN NEW.namespace = 'core' AND json_array_length(NEW.body, '$.applicability.domains') > 0
        THEN json_extract(NEW.body, '$.applicability.domains') ELSE '' END,
      coalesce(json_extract(NEW.body, '$.source.kind'), ''),
      coalesce(json_extract(NEW.body, '$.review.review_status'), ''),
      strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace, key, domains, source_kind, review_status)
      DO UPDATE SET changed_at = max(changed_at, excluded.changed_at);
END;

-- A deleted claim leaves its shape's time, unless the whole profile is going (then nothing is
-- left to be fresh: see the profiles trigger below).
CREATE TRIGGER claims_shape_changed_on_delete AFTER DELETE ON claims
WHEN EXISTS (SELECT 1 FROM profiles WHERE profile_id = OLD.profile_id)
BEGIN
  INSERT INTO claim_changes (profile_id, namespace, key, domains, source_kind, review_status, changed_at)
    VALUES (OLD.profile_id, OLD.namespace, OLD.key,
      CASE WHEN OLD.namespace = 'core' AND json_array_length(OLD.body, '$.applicability.domains') > 0
        THEN json_extract(OLD.body, '$.applicability.domains') ELSE '' END,
      coalesce(json_extract(OLD.body, '$.source.kind'), ''),
      coalesce(json_extract(OLD.body, '$.review.review_status'), ''),
      strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ON CONFLICT (profile_id, namespace, key, domains, source_kind, review_status)
      DO UPDATE SET changed_at = max(changed_at, excluded.changed_at);
END;

CREATE TRIGGER profiles_claim_changes_on_delete AFTER DELETE ON profiles
BEGIN
  DELETE FROM claim_changes WHERE profile_id = OLD.profile_id;
END;
