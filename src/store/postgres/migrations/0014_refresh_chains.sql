-- Refresh chains (issue 27 item 4; docs/oauth.md, "Refresh tokens"; SQLite
-- 0020_refresh_chains.sql): a family's refresh tokens as one row, its current generation moved on
-- by one compare-and-set per rotation. Families made before keep their tokens in refresh_tokens
-- until their next rotation, which starts their chain. Moved by `ppx migrate`.
CREATE TABLE refresh_chains (
  family_id  text COLLATE "C" PRIMARY KEY REFERENCES token_families (family_id) ON DELETE CASCADE,
  seed       text NOT NULL,
  generation bigint NOT NULL,
  issued_at  text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL
);
