-- A profile's `version` changes whenever its claims or modifiers change, so a reader can keep
-- parsed claims and trust them for as long as the version it reads is the same. Versions come
-- from one global counter: a profile deleted and created again under the same id never reuses a
-- version it had before. Triggers, not application code, keep it: every write path is covered,
-- including other processes (the CLI) writing to the same file.

CREATE TABLE change_counter (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n  INTEGER NOT NULL
) STRICT;
INSERT INTO change_counter (id, n) VALUES (1, 0);

ALTER TABLE profiles ADD COLUMN version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER profiles_version_on_insert AFTER INSERT ON profiles
BEGIN
  UPDATE change_counter SET n = n + 1 WHERE id = 1;
  UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = NEW.profile_id;
END;

CREATE TRIGGER claims_version_on_insert AFTER INSERT ON claims
BEGIN
  UPDATE change_counter SET n = n + 1 WHERE id = 1;
  UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = NEW.profile_id;
END;

CREATE TRIGGER claims_version_on_update AFTER UPDATE ON claims
BEGIN
  UPDATE change_counter SET n = n + 1 WHERE id = 1;
  UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1)
    WHERE profile_id IN (NEW.profile_id, OLD.profile_id);
END;

CREATE TRIGGER claims_version_on_delete AFTER DELETE ON claims
BEGIN
  UPDATE change_counter SET n = n + 1 WHERE id = 1;
  UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = OLD.profile_id;
END;

CREATE TRIGGER modifiers_version_on_insert AFTER INSERT ON modifiers
BEGIN
  UPDATE change_counter SET n = n + 1 WHERE id = 1;
  UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = NEW.profile_id;
END;

CREATE TRIGGER modifiers_version_on_update AFTER UPDATE ON modifiers
BEGIN
  UPDATE change_counter SET n = n + 1 WHERE id = 1;
  UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1)
    WHERE profile_id IN (NEW.profile_id, OLD.profile_id);
END;

CREATE TRIGGER modifiers_version_on_delete AFTER DELETE ON modifiers
BEGIN
  UPDATE change_counter SET n = n + 1 WHERE id = 1;
  UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = OLD.profile_id;
END;
