-- The profile version and the claim shapes kept per statement instead of per row. putClaims writes
-- a whole list in one upsert (record-queries.ts); per-row triggers then updated the profile row
-- and the change counter once for every claim of it, which was most of a 200-claim import (7
-- subjects a second seeded, against 100 on SQLite). Statement-level triggers over the statement's
-- transition tables do each once. The version still changes with every write of claims or
-- modifiers, and is never reused; it does not count rows (its readers compare it for equality).
-- PostgreSQL allows transition tables on single-event triggers only: one trigger per event.
-- SQLite has no statement triggers; its per-row triggers (0002, 0010) give the same results.

DROP TRIGGER claims_version ON claims;
DROP TRIGGER modifiers_version ON modifiers;
DROP TRIGGER claims_shape_changed ON claims;
DROP FUNCTION ppx_content_version();
DROP FUNCTION ppx_claim_shapes();

CREATE FUNCTION ppx_bump_versions_of(profile_ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(profile_ids) > 0 THEN
    PERFORM ppx_bump_versions(VARIADIC profile_ids);
  END IF;
END $$;

CREATE FUNCTION ppx_content_version_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ppx_bump_versions_of(ARRAY(SELECT DISTINCT profile_id FROM new_rows));
  RETURN NULL;
END $$;

CREATE FUNCTION ppx_content_version_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ppx_bump_versions_of(ARRAY(SELECT profile_id FROM new_rows UNION SELECT profile_id FROM old_rows));
  RETURN NULL;
END $$;

CREATE FUNCTION ppx_content_version_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ppx_bump_versions_of(ARRAY(SELECT DISTINCT profile_id FROM old_rows));
  RETURN NULL;
END $$;

CREATE TRIGGER claims_version_inserted AFTER INSERT ON claims REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_content_version_inserted();
CREATE TRIGGER claims_version_updated AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_content_version_updated();
CREATE TRIGGER claims_version_deleted AFTER DELETE ON claims REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_content_version_deleted();
CREATE TRIGGER modifiers_version_inserted AFTER INSERT ON modifiers REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_content_version_inserted();
CREATE TRIGGER modifiers_version_updated AFTER UPDATE ON modifiers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_content_version_updated();
CREATE TRIGGER modifiers_version_deleted AFTER DELETE ON modifiers REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_content_version_deleted();

-- The shapes (model/claim.ts#claimShape) of many claim rows at once, their time moved to now,
-- never back: 0001's ppx_claim_shape_changed over arrays, each shape once.
CREATE FUNCTION ppx_claim_shapes_changed(profile_ids text[], namespaces text[], keys text[], bodies text[])
RETURNS void LANGUAGE sql AS $$
  INSERT INTO claim_changes (profile_id, namespace, key, domains, source_kind, review_status, changed_at)
  SELECT DISTINCT profile_id, namespace, key, domains, source_kind, review_status, ppx_now() FROM (
    SELECT c.p AS profile_id, c.ns AS namespace, c.k AS key,
      CASE WHEN c.ns = 'core' AND json_typeof(c.b -> 'applicability' -> 'domains') = 'array'
             AND json_array_length(c.b -> 'applicability' -> 'domains') > 0
        THEN (c.b -> 'applicability' -> 'domains')::text ELSE '' END AS domains,
      coalesce(c.b -> 'source' ->> 'kind', '') AS source_kind,
      coalesce(c.b -> 'review' ->> 'review_status', '') AS review_status
    FROM (SELECT u.p, u.ns, u.k, u.b::json AS b FROM unnest(profile_ids, namespaces, keys, bodies) AS u (p, ns, k, b)) c
  ) shapes
  ON CONFLICT (profile_id, namespace, key, domains, source_kind, review_status)
    DO UPDATE SET changed_at = greatest(claim_changes.changed_at, excluded.changed_at)
$$;

-- Insert: the new shapes. Update: the old shapes and the new.
CREATE FUNCTION ppx_claim_shapes_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ppx_claim_shapes_changed(array_agg(profile_id), array_agg(namespace), array_agg(key), array_agg(body))
    FROM new_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION ppx_claim_shapes_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ppx_claim_shapes_changed(array_agg(profile_id), array_agg(namespace), array_agg(key), array_agg(body))
    FROM (SELECT profile_id, namespace, key, body FROM old_rows
          UNION ALL SELECT profile_id, namespace, key, body FROM new_rows) changed
    HAVING count(*) > 0;
  RETURN NULL;
END $$;

-- Delete: the old shapes, unless the whole profile is going (profiles_claim_changes_on_delete
-- takes its rows with it).
CREATE FUNCTION ppx_claim_shapes_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ppx_claim_shapes_changed(array_agg(profile_id), array_agg(namespace), array_agg(key), array_agg(body))
    FROM old_rows WHERE EXISTS (SELECT 1 FROM profiles p WHERE p.profile_id = old_rows.profile_id)
    HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE TRIGGER claims_shapes_inserted AFTER INSERT ON claims REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_claim_shapes_inserted();
CREATE TRIGGER claims_shapes_updated AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_claim_shapes_updated();
CREATE TRIGGER claims_shapes_deleted AFTER DELETE ON claims REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ppx_claim_shapes_deleted();
