/**
 * How a grant package's tokens are keyed in the store: `package:` and its first child's id (a
 * package token belongs to no single grant; its children are `grantIds`).
 */
export const PACKAGE_PREFIX = 'package:';

/** What a grantee keeps of one grant's (or one grant package's) tokens. */
export interface StoredTokens {
  /** The grant id; for a grant package, `package:<first child id>` (PACKAGE_PREFIX). */
  readonly grantId: string;
  readonly accessToken: string;
  readonly tokenType: 'Bearer' | 'DPoP';
  /** Milliseconds since the epoch at which the access token expires. */
  readonly expiresAt: number;
  readonly refreshToken?: string;
  /** Which endpoint refreshes these: consent-v2's `/v1/consent/refresh` or the OAuth token endpoint. */
  readonly via: 'consent' | 'oauth';
  /** A grant package's children (child ids), for a package token (OAuth with several authorization_details). */
  readonly grantIds?: readonly string[];
}

/**
 * Where tokens live, keyed by grant id: memory by default; a server app puts them in its database,
 * a browser app wherever it keeps secrets. A rotated refresh token replaces the old one here.
 */
export interface TokenStore {
  get(grantId: string): Promise<StoredTokens | undefined>;
  set(tokens: StoredTokens): Promise<void>;
  delete(grantId: string): Promise<void>;
}

export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredTokens>();
  async get(grantId: string): Promise<StoredTokens | undefined> {
    return this.#tokens.get(grantId);
  }
  async set(tokens: StoredTokens): Promise<void> {
    this.#tokens.set(tokens.grantId, tokens);
  }
  async delete(grantId: string): Promise<void> {
    this.#tokens.delete(grantId);
  }
}
