import type { PairwiseIds } from '../auth/pairwise.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Store } from '../store/store.ts';
import type { RateLimits } from './rate-limits.ts';

/** Facts about this provider that operations publish. */
export interface ProviderInfo {
  readonly providerId: string;
  readonly name: string;
  readonly baseUrl: string;
  readonly tokenTtlSeconds: number;
}

/** Everything an operation needs, passed explicitly (no globals, no ambient clock). */
export interface Deps {
  readonly store: Store;
  readonly tokens: TokenService;
  readonly pairwise: PairwiseIds;
  readonly provider: ProviderInfo;
  readonly clock: () => Date;
  /** The named rate limits and the counter they are counted with (operations/rate-limits.ts). */
  readonly rateLimits: RateLimits;
}
