// The DPoP replay ledger (RFC 9449 §11.1): each proof's `jti` is taken once while the proof could
// still be accepted (its iat within the window, auth/dpop.ts), so a proof copied off the wire
// cannot be sent again. It is state every instance must agree on: a shared store (PostgreSQL,
// postgres/proof-ledger.ts) keeps it in a table every instance writes to; a SQLite provider is one
// process (docs/deploy.md), and keeps it here in memory. Either is bounded: an entry lives only
// until its proof is too old to be accepted anyway, and expired entries are pruned as new ones come.

export interface ProofLedger {
  /**
   * Takes `key` (a proof's key thumbprint and jti, hashed) until `expiresAtMs`: true the first
   * time, false when it was taken before and has not yet expired. Never throws for a caller's
   * reasons; a ledger that cannot record (a store down) rejects, and the request fails closed.
   */
  take(key: string, expiresAtMs: number, now: Date): Promise<boolean>;
}

/** More live entries than this (a flood of valid proofs in one window) and new proofs are refused. */
const MEMORY_LIMIT = 200_000;

/** One process's ledger: a map from key to expiry, pruned when it grows. */
export class MemoryProofLedger implements ProofLedger {
  readonly #entries = new Map<string, number>();
  readonly #limit: number;
  #nextPrune = 0;
  /** When full, a prune (a walk of every entry) at most once a second, not once per refused proof. */
  #nextFullPrune = 0;

  constructor(limit = MEMORY_LIMIT) {
    this.#limit = limit;
  }

  async take(key: string, expiresAtMs: number, now: Date): Promise<boolean> {
    const nowMs = now.getTime();
    const seen = this.#entries.get(key);
    if (seen !== undefined && seen > nowMs) return false;
    const full = this.#entries.size >= this.#limit;
    if (nowMs >= this.#nextPrune || (full && nowMs >= this.#nextFullPrune)) this.#prune(nowMs);
    // Still full of live proofs: refusing one is safer than forgetting one (which would let it be replayed).
    if (this.#entries.size >= this.#limit) return false;
    this.#entries.set(key, expiresAtMs);
    return true;
  }

  /** Live entries, for tests and the benchmark's bound check. */
  get size(): number {
    return this.#entries.size;
  }

  #prune(nowMs: number): void {
    for (const [key, expires] of this.#entries) if (expires <= nowMs) this.#entries.delete(key);
    this.#nextPrune = nowMs + 10_000;
    this.#nextFullPrune = nowMs + 1_000;
  }
}
