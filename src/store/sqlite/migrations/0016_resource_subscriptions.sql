-- MCP resource subscriptions (MCP 2025-11-25 resources/subscribe; docs/store.md, "MCP resource
-- subscriptions"): which resource URIs a consent grant has subscribed to, so that the instance
-- serving a client's later GET stream knows them. A subscription belongs to the grant, not to a
-- session. Transient protocol state: not exported, imported or moved by `ppx migrate`, and no
-- change event is appended for it. The implicit rowid is the order the URIs were first added in
-- (PostgreSQL's `seq`, as grant_requests.seq stands for its rowid). No foreign key to grants: the
-- rows are the protocol's, and every read names the grant.
CREATE TABLE resource_subscriptions (
  grant_id   TEXT NOT NULL,
  uri        TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (grant_id, uri)
) STRICT;
