import type pg from 'pg';
import type { ProofLedger } from '../proof-ledger.ts';

// The DPoP replay ledger in PostgreSQL (store/proof-ledger.ts): every instance takes proofs from
// one UNLOGGED table (migration 0010), so a proof accepted by one instance is refused by every
// other. One statement per proof: the insert wins, or finds a live row and takes nothing (an
// expired row with the same key is taken over). Rows whose proofs are too old to be accepted
// are deleted now and then by whichever instance takes proofs, so the table holds at most one
// window's proofs.

const PRUNE_EVERY = 500;

export class PostgresProofLedger implements ProofLedger {
  readonly #pool: pg.Pool;
  #taken = 0;
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async take(key: string, expiresAtMs: number, now: Date): Promise<boolean> {
    const nowMs = now.getTime();
    const { rowCount } = await this.#pool.query(
      `INSERT INTO dpop_proofs (key, expires_at) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE dpop_proofs.expires_at <= $3`,
      [key, expiresAtMs, nowMs],
    );
    if (++this.#taken % PRUNE_EVERY === 0) {
      this.#pool.query('DELETE FROM dpop_proofs WHERE expires_at <= $1', [nowMs]).catch(() => undefined);
    }
    return rowCount === 1;
  }
}
