-- Refresh chains (issue 27 item 4; docs/oauth.md, "Refresh tokens"; PostgreSQL
-- 0014_refresh_chains.sql): a family's refresh tokens as one row. A token names its family and
-- generation and is the HMAC of both under `seed` (auth/refresh-chain.ts), so a rotation is one
-- compare-and-set of `generation` on this row, where it was an UPDATE of the spent token's row and
-- the INSERT of the next one's, with their three indexes (a page each, every rotation). The token
-- of `generation` is current, every lower one spent. Families made before keep their tokens in
-- refresh_tokens until their next rotation, which starts their chain. A chain goes with its
-- family, as its row in family_grants does; `ppx migrate` moves it.
CREATE TABLE refresh_chains (
  family_id  TEXT PRIMARY KEY REFERENCES token_families (family_id) ON DELETE CASCADE,
  seed       TEXT NOT NULL,
  generation INTEGER NOT NULL,
  issued_at  TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
