import type { DpopNonces } from '../auth/dpop-nonces.ts';
import type { PairwiseIds } from '../auth/pairwise.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { ChangeFeed } from '../store/change-feed.ts';
import type { ProofLedger } from '../store/proof-ledger.ts';
import type { ProviderStore, StoreTx } from '../store/store.ts';
import type { Metrics } from './provider/metrics.ts';
import type { RateLimits } from './provider/rate-limits.ts';

/** Facts about this provider that operations publish. */
export interface ProviderInfo {
  readonly providerId: string;
  readonly name: string;
  readonly baseUrl: string;
  readonly tokenTtlSeconds: number;
}

/** What every operation gets besides the store. */
interface Services {
  readonly tokens: TokenService;
  readonly pairwise: PairwiseIds;
  readonly provider: ProviderInfo;
  readonly clock: () => Date;
  /** Committed change events, for operations that let a caller follow them (changes.ts). */
  readonly changes: ChangeFeed;
  /** The named rate limits and the counter they are counted with (operations/provider/rate-limits.ts). */
  readonly rateLimits: RateLimits;
  /** What an operator watches at /metrics (operations/provider/metrics.ts). */
  readonly metrics: Metrics;
  /** DPoP (RFC 9449): the shared replay ledger, and the nonces when the server asks for them. */
  readonly dpop: DpopServices;
}

interface DpopServices {
  readonly ledger: ProofLedger;
  /** Present when every proof must carry a server nonce (`PPX_DPOP_NONCE=1`). */
  readonly nonces?: DpopNonces;
}

/**
 * Everything an operation needs, passed explicitly (no globals, no ambient clock). The store
 * here only reads (and appends audit events): every write goes through `inTransaction`
 * (transaction.ts), which hands the operation a TxDeps, so a write and its change event always
 * commit together and the compiler refuses a write anywhere else.
 */
export interface Deps extends Services {
  readonly store: ProviderStore;
}

/** Deps inside one store transaction: `store` is the transaction, with every writer. */
export interface TxDeps extends Services {
  readonly store: StoreTx;
}

/** A step that only reads (and audits) runs inside a transaction or outside one alike. */
export type AnyDeps = Deps | TxDeps;
