-- The DPoP replay ledger (RFC 9449 §11.1; store/postgres/proof-ledger.ts): one row per proof
-- accepted, keyed by a hash of its key thumbprint and jti, until the proof is too old to be
-- accepted anyway. UNLOGGED like rate_windows: losing it in a crash reopens at most one window
-- (five minutes) of replays, and not writing it to the WAL keeps a DPoP request cheap.
CREATE UNLOGGED TABLE dpop_proofs (
  key        text   COLLATE "C" PRIMARY KEY,
  expires_at bigint NOT NULL
);
CREATE INDEX dpop_proofs_by_expiry ON dpop_proofs (expires_at);
