import type { PairwiseIds } from '../auth/pairwise.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Store } from '../store/store.ts';

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
}
