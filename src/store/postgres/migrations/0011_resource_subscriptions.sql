-- MCP resource subscriptions (MCP 2025-11-25 resources/subscribe; docs/store.md, "MCP resource
-- subscriptions"; SQLite 0016_resource_subscriptions.sql): which resource URIs a consent grant has
-- subscribed to, so that whichever instance serves a client's later GET stream knows them. A
-- subscription belongs to the grant, not to a session. Transient protocol state: not exported,
-- imported or moved by `ppx migrate`, and no change event is appended for it. `seq` stands for
-- SQLite's implicit rowid: the order the URIs were first added in (a grant's adds are serialized
-- by its SUBSCRIPTION_LOCK, so seq order is add order within a grant). No foreign key to grants.
CREATE TABLE resource_subscriptions (
  grant_id   text COLLATE "C" NOT NULL,
  uri        text COLLATE "C" NOT NULL,
  created_at text NOT NULL,
  seq        bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (grant_id, uri)
);
CREATE INDEX resource_subscriptions_by_grant ON resource_subscriptions (grant_id, seq);
