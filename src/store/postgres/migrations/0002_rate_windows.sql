-- Rate limits shared by every instance on the database (issue 14, item 2; store/postgres/rate-counter.ts):
-- one row per limit, key and fixed window, counted up with an upsert. UNLOGGED: the counts are
-- safe to lose (a crash only resets the current windows, as a restart resets an in-memory
-- counter), and not writing them to the WAL keeps a counted request cheap.
CREATE UNLOGGED TABLE rate_windows (
  name         text   COLLATE "C" NOT NULL,
  key          text   COLLATE "C" NOT NULL,
  window_start bigint NOT NULL,
  count        integer NOT NULL,
  PRIMARY KEY (name, key, window_start)
);
CREATE INDEX rate_windows_by_start ON rate_windows (window_start);
