-- The schema of SQLite migrations 0001–0013 (src/store/sqlite/migrations/), as one PostgreSQL
-- migration: no PostgreSQL database ever held an earlier schema, so the steps that carried data
-- over there (0005's imported history, 0008 → 0010, 0011's rebuilt log) have nothing to carry
-- here. A change to the schema from now on adds a numbered file on both sides.
--
-- Same tables, columns, constraints, indexes and triggers, with PostgreSQL types: TEXT stays text
-- (COLLATE "C" wherever a column is ordered or compared, so ordering is by code point, as
-- SQLite's), INTEGER is bigint. Records are stored whole as JSON text in `body`, byte for byte as
-- written (an A2A task's body is handed back exactly); the writes that patch a body
-- (compare-and-set transitions) use ppx_json_patch below, which keeps the order of its fields.

-- The database's clock, as RFC 3339 UTC with milliseconds (SQLite's strftime('%Y-%m-%dT%H:%M:%fZ')).
-- statement_timestamp: the time the current statement began, so the old and the new shape of one
-- update get the same time (SQLite's 'now' is fixed within a statement too); not now(), which is the
-- time the transaction began.
CREATE FUNCTION ppx_now() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- `doc` (a JSON object as text) with the top-level fields of `patch` set: existing fields keep
-- their place, new ones follow in the patch's order (SQLite's json_set on '$.field' paths).
CREATE FUNCTION ppx_json_patch(doc text, patch json) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(json_object_agg(k, v ORDER BY o), '{}'::json)::text FROM (
    SELECT d.key AS k, coalesce(p.value, d.value) AS v, d.ordinality AS o
      FROM json_each(doc::json) WITH ORDINALITY d LEFT JOIN json_each(patch) p ON p.key = d.key
    UNION ALL
    SELECT p.key, p.value, 1000000000 + p.ordinality
      FROM json_each(patch) WITH ORDINALITY p
      WHERE NOT EXISTS (SELECT 1 FROM json_each(doc::json) d WHERE d.key = p.key)
  ) fields
$$;


-- 0001 -----------------------------------------------------------------------------------------

-- `version` (0002) changes whenever the profile's claims or modifiers change, from one global
-- counter, so a version is never reused, even by a profile deleted and created again.
CREATE TABLE profiles (
  profile_id     text COLLATE "C" PRIMARY KEY,
  subject_id     text COLLATE "C" NOT NULL UNIQUE,
  created_at     text NOT NULL,
  updated_at     text NOT NULL,
  default_policy text,
  version        bigint NOT NULL DEFAULT 0
);

CREATE TABLE claims (
  claim_id   text COLLATE "C" PRIMARY KEY,
  profile_id text COLLATE "C" NOT NULL REFERENCES profiles (profile_id) ON DELETE CASCADE,
  namespace  text COLLATE "C" NOT NULL,
  key        text COLLATE "C" NOT NULL,
  body       text NOT NULL
);
CREATE INDEX claims_by_profile ON claims (profile_id, namespace, key, claim_id);

CREATE TABLE modifiers (
  modifier_id text COLLATE "C" PRIMARY KEY,
  profile_id  text COLLATE "C" NOT NULL REFERENCES profiles (profile_id) ON DELETE CASCADE,
  body        text NOT NULL
);
CREATE INDEX modifiers_by_profile ON modifiers (profile_id, modifier_id);

-- No foreign key to profiles: grants outlive a deleted profile (they are evidence of consent).
CREATE TABLE grants (
  grant_id    text COLLATE "C" PRIMARY KEY,
  subject_id  text COLLATE "C" NOT NULL,
  grantee_id  text COLLATE "C" NOT NULL,
  profile_id  text COLLATE "C" NOT NULL,
  status      text NOT NULL,
  granted_at  text COLLATE "C" NOT NULL,
  expires_at  text COLLATE "C",
  revoked_at  text,
  access_mode text NOT NULL,
  body        text NOT NULL
);
CREATE INDEX grants_by_subject ON grants (subject_id, granted_at DESC, grant_id);
CREATE INDEX grants_by_grantee ON grants (grantee_id);

CREATE TABLE clients (
  client_id  text COLLATE "C" PRIMARY KEY,
  created_at text NOT NULL,
  body       text NOT NULL
);

CREATE TABLE signing_keys (
  kid        text COLLATE "C" PRIMARY KEY,
  created_at text COLLATE "C" NOT NULL,
  body       text NOT NULL
);

CREATE TABLE settings (
  name  text COLLATE "C" PRIMARY KEY,
  value text NOT NULL
);

-- 0002: the profile version, kept by triggers so every write path is covered. -------------------

CREATE TABLE change_counter (
  id int PRIMARY KEY CHECK (id = 1),
  n  bigint NOT NULL
);
INSERT INTO change_counter (id, n) VALUES (1, 0);

CREATE FUNCTION ppx_bump_versions(VARIADIC profile_ids text[]) RETURNS void LANGUAGE sql AS $$
  WITH counter AS (UPDATE change_counter SET n = n + 1 WHERE id = 1 RETURNING n)
  UPDATE profiles SET version = (SELECT n FROM counter) WHERE profile_id = ANY (profile_ids)
$$;

CREATE FUNCTION ppx_profile_version_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ppx_bump_versions(NEW.profile_id);
  RETURN NULL;
END $$;
CREATE TRIGGER profiles_version_on_insert AFTER INSERT ON profiles
  FOR EACH ROW EXECUTE FUNCTION ppx_profile_version_on_insert();

-- Claims and modifiers: the profiles of the new row (insert, update) and of the old (update, delete).
CREATE FUNCTION ppx_content_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM ppx_bump_versions(NEW.profile_id);
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM ppx_bump_versions(NEW.profile_id, OLD.profile_id);
  ELSE
    PERFORM ppx_bump_versions(OLD.profile_id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER claims_version AFTER INSERT OR UPDATE OR DELETE ON claims
  FOR EACH ROW EXECUTE FUNCTION ppx_content_version();
CREATE TRIGGER modifiers_version AFTER INSERT OR UPDATE OR DELETE ON modifiers
  FOR EACH ROW EXECUTE FUNCTION ppx_content_version();

-- 0003, 0004: the consent side. --------------------------------------------------------------

CREATE TABLE subjects (
  subject_id text COLLATE "C" PRIMARY KEY,
  -- Case-folded by the caller; stored as given.
  username   text COLLATE "C" NOT NULL UNIQUE,
  body       text NOT NULL
);

CREATE TABLE sessions (
  session_hash text COLLATE "C" PRIMARY KEY,
  subject_id   text COLLATE "C" NOT NULL,
  expires_at   text NOT NULL,
  body         text NOT NULL
);
CREATE INDEX sessions_by_subject ON sessions (subject_id);

-- `seq` is SQLite's implicit rowid: pending requests are listed in the order they were made.
CREATE TABLE grant_requests (
  seq              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  grant_request_id text COLLATE "C" PRIMARY KEY,
  client_id        text COLLATE "C" NOT NULL,
  subject_id       text COLLATE "C" NOT NULL,
  status           text COLLATE "C" NOT NULL,
  expires_at       text NOT NULL,
  package_id       text COLLATE "C",
  package_index    bigint,
  body             text NOT NULL
);
CREATE INDEX grant_requests_by_subject ON grant_requests (subject_id, status);
CREATE INDEX grant_requests_by_package ON grant_requests (package_id, package_index)
  WHERE package_id IS NOT NULL;

CREATE TABLE token_families (
  family_id  text COLLATE "C" PRIMARY KEY,
  client_id  text COLLATE "C" NOT NULL,
  subject_id text COLLATE "C" NOT NULL,
  status     text COLLATE "C" NOT NULL,
  body       text NOT NULL
);

CREATE TABLE family_grants (
  family_id text COLLATE "C" NOT NULL REFERENCES token_families (family_id) ON DELETE CASCADE,
  grant_id  text COLLATE "C" NOT NULL,
  PRIMARY KEY (family_id, grant_id)
);
CREATE INDEX family_grants_by_grant ON family_grants (grant_id, family_id);

-- `expires_at` (0011): spent tokens are pruned without reading every body.
CREATE TABLE refresh_tokens (
  token_hash text COLLATE "C" PRIMARY KEY,
  family_id  text COLLATE "C" NOT NULL REFERENCES token_families (family_id) ON DELETE CASCADE,
  status     text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C",
  body       text NOT NULL
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);

-- 0005: write-back. --------------------------------------------------------------------------

CREATE TABLE proposals (
  proposal_id text COLLATE "C" PRIMARY KEY,
  profile_id  text COLLATE "C" NOT NULL REFERENCES profiles (profile_id) ON DELETE CASCADE,
  grant_id    text COLLATE "C" NOT NULL,
  client_id   text COLLATE "C" NOT NULL,
  status      text COLLATE "C" NOT NULL CHECK (status IN ('pending', 'confirmed', 'rejected', 'applied')),
  created_at  text COLLATE "C" NOT NULL,
  body        text NOT NULL
);
CREATE INDEX proposals_by_profile ON proposals (profile_id, status);

CREATE TABLE claim_history (
  seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  claim_id   text COLLATE "C" NOT NULL,
  profile_id text COLLATE "C" NOT NULL,
  at         text NOT NULL,
  at_ms      bigint NOT NULL,
  body       text NOT NULL
);
CREATE INDEX claim_history_by_profile ON claim_history (profile_id, seq);
CREATE INDEX claim_history_by_claim ON claim_history (profile_id, claim_id, seq);

CREATE FUNCTION ppx_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;
CREATE TRIGGER claim_history_append_only BEFORE UPDATE OR DELETE ON claim_history
  FOR EACH ROW EXECUTE FUNCTION ppx_append_only();

-- 0006: cross-domain reviews. ----------------------------------------------------------------

CREATE TABLE cross_domain_reviews (
  review_id      text COLLATE "C" PRIMARY KEY,
  grant_id       text COLLATE "C" NOT NULL,
  subject_id     text COLLATE "C" NOT NULL,
  -- JSON array of source domains, sorted.
  source_domains text NOT NULL,
  -- The domain(s) the grantee uses the claims in, sorted and comma-joined.
  target_domain  text NOT NULL,
  status         text COLLATE "C" NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  created_at     text COLLATE "C" NOT NULL,
  decided_at     text,
  body           text NOT NULL
);
CREATE INDEX cross_domain_reviews_by_grant ON cross_domain_reviews (grant_id, created_at, review_id);
CREATE INDEX cross_domain_reviews_by_subject ON cross_domain_reviews (subject_id, status, created_at);

-- 0007: pairwise subjects. -------------------------------------------------------------------

CREATE TABLE pairwise_subjects (
  client_id   text COLLATE "C" NOT NULL,
  pairwise_id text COLLATE "C" NOT NULL,
  subject_id  text COLLATE "C" NOT NULL,
  PRIMARY KEY (client_id, pairwise_id)
);

-- 0009: the change-event outbox. -------------------------------------------------------------

-- Seqs come from change_seq, a counter row updated by the writing transaction (under the store's
-- write lock, docs/store.md "PostgreSQL"), not from a SEQUENCE: a sequence would leave a hole on
-- every rollback, and two transactions could commit their seqs out of order. So seqs are
-- consecutive in commit order, and the counter keeps the highest one given even if rows go.
CREATE TABLE change_seq (
  one int PRIMARY KEY CHECK (one = 1),
  seq bigint NOT NULL
);
INSERT INTO change_seq (one, seq) VALUES (1, 0);

CREATE TABLE changes (
  seq        bigint PRIMARY KEY,
  at         text NOT NULL,
  subject_id text COLLATE "C" NOT NULL,
  kind       text NOT NULL,
  ids        text NOT NULL,
  grants     text NOT NULL
);
CREATE INDEX changes_by_subject ON changes (subject_id, seq);

CREATE TABLE grant_expiries (
  grant_id     text COLLATE "C" PRIMARY KEY,
  announced_at text NOT NULL
);

CREATE FUNCTION ppx_changes_never_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'change events are never updated';
END $$;
CREATE TRIGGER changes_no_update BEFORE UPDATE ON changes
  FOR EACH ROW EXECUTE FUNCTION ppx_changes_never_updated();

-- 0010: when claims of each shape last changed (0008's per-namespace table never existed here). --

CREATE TABLE claim_changes (
  profile_id    text COLLATE "C" NOT NULL,
  namespace     text COLLATE "C" NOT NULL,
  key           text COLLATE "C" NOT NULL,
  domains       text COLLATE "C" NOT NULL,
  source_kind   text COLLATE "C" NOT NULL,
  review_status text COLLATE "C" NOT NULL,
  changed_at    text COLLATE "C" NOT NULL,
  PRIMARY KEY (profile_id, namespace, key, domains, source_kind, review_status)
);

-- The shape of a claim row (model/claim.ts#claimShape), its time moved to now, never back.
-- `domains` is a core claim's applicability.domains as JSON text when it names some, else ''.
CREATE FUNCTION ppx_claim_shape_changed(p_profile text, p_namespace text, p_key text, p_body text)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO claim_changes (profile_id, namespace, key, domains, source_kind, review_status, changed_at)
  SELECT p_profile, p_namespace, p_key,
    CASE WHEN p_namespace = 'core' AND json_typeof(b -> 'applicability' -> 'domains') = 'array'
           AND json_array_length(b -> 'applicability' -> 'domains') > 0
      THEN (b -> 'applicability' -> 'domains')::text ELSE '' END,
    coalesce(b -> 'source' ->> 'kind', ''),
    coalesce(b -> 'review' ->> 'review_status', ''),
    ppx_now()
  FROM (SELECT p_body::json AS b) claim
  ON CONFLICT (profile_id, namespace, key, domains, source_kind, review_status)
    DO UPDATE SET changed_at = greatest(claim_changes.changed_at, excluded.changed_at)
$$;

-- Insert: the new shape. Update: the old shape and the new. Delete: the old shape, unless the
-- whole profile is going (its rows go with it, below).
CREATE FUNCTION ppx_claim_shapes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    IF TG_OP = 'UPDATE' OR EXISTS (SELECT 1 FROM profiles WHERE profile_id = OLD.profile_id) THEN
      PERFORM ppx_claim_shape_changed(OLD.profile_id, OLD.namespace, OLD.key, OLD.body);
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM ppx_claim_shape_changed(NEW.profile_id, NEW.namespace, NEW.key, NEW.body);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER claims_shape_changed AFTER INSERT OR UPDATE OR DELETE ON claims
  FOR EACH ROW EXECUTE FUNCTION ppx_claim_shapes();

CREATE FUNCTION ppx_profile_claim_changes_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM claim_changes WHERE profile_id = OLD.profile_id;
  RETURN NULL;
END $$;
CREATE TRIGGER profiles_claim_changes_on_delete AFTER DELETE ON profiles
  FOR EACH ROW EXECUTE FUNCTION ppx_profile_claim_changes_on_delete();

-- 0011: the compact audit log. ---------------------------------------------------------------

CREATE TABLE audit_key_sets (
  set_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  digest text COLLATE "C" UNIQUE,
  keys   text NOT NULL
);

-- `ts` is the log's own clock: the largest `at_ms` up to and including this event, so it never
-- decreases as `seq` grows (appends are serialized by the write lock, so seq order is commit order).
CREATE TABLE audit_events (
  seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id   text COLLATE "C" NOT NULL UNIQUE,
  subject_id text COLLATE "C" NOT NULL,
  grant_id   text COLLATE "C",
  actor_kind text NOT NULL,
  actor_id   text COLLATE "C" NOT NULL,
  action     text COLLATE "C" NOT NULL,
  outcome    text NOT NULL,
  detail     text,
  key_set    bigint REFERENCES audit_key_sets (set_id),
  at         text NOT NULL,
  at_ms      bigint NOT NULL,
  ts         bigint NOT NULL
);
CREATE INDEX audit_by_subject ON audit_events (subject_id, seq);
CREATE INDEX audit_by_grant ON audit_events (subject_id, grant_id, seq);
CREATE INDEX audit_by_actor ON audit_events (subject_id, actor_id, seq);
CREATE INDEX audit_by_action ON audit_events (subject_id, action, seq);

CREATE TABLE audit_clock (
  one            int PRIMARY KEY CHECK (one = 1),
  max_lag        bigint NOT NULL,
  key_generation bigint NOT NULL DEFAULT 0
);
INSERT INTO audit_clock (one, max_lag) VALUES (1, 0);

CREATE TABLE audit_prune_horizon (
  one       int PRIMARY KEY CHECK (one = 1),
  before_ms bigint NOT NULL
);
INSERT INTO audit_prune_horizon (one, before_ms) VALUES (1, 0);

CREATE FUNCTION ppx_audit_no_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only';
END $$;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION ppx_audit_no_update();

CREATE FUNCTION ppx_audit_delete_before_horizon() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.at_ms >= (SELECT before_ms FROM audit_prune_horizon) THEN
    RAISE EXCEPTION 'audit_events is append-only: only events before the prune horizon may go';
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION ppx_audit_delete_before_horizon();

-- 0012, 0013: A2A tasks. ---------------------------------------------------------------------

CREATE TABLE a2a_tasks (
  task_id    text COLLATE "C" PRIMARY KEY,
  owner      text COLLATE "C" NOT NULL,
  context_id text COLLATE "C" NOT NULL,
  -- The SDK's JSON name of the state, e.g. 'TASK_STATE_COMPLETED'.
  state      text COLLATE "C" NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  updated_ms bigint NOT NULL,
  -- Text, handed back byte for byte; the cast makes a body that is not JSON fail the insert.
  body       text NOT NULL CHECK (body::json IS NOT NULL)
);
CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, updated_ms DESC, task_id);
CREATE INDEX a2a_tasks_by_context ON a2a_tasks (owner, context_id, updated_ms DESC, task_id);
CREATE INDEX a2a_tasks_by_age ON a2a_tasks (updated_ms);
