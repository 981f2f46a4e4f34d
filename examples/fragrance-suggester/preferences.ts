import {
  type ClientError,
  type Context,
  decisionFromRedirect,
  discover,
  type EffectiveProfile,
  Grant,
  type GrantRequest,
  MemoryTokenStore,
  type PendingGrant,
  PpxClient,
  type ProposeResult,
  type Result,
} from '@ppx-provider/client';

// Everything this app does with the person's preferences provider, through @ppx-provider/client
// and nothing else: ask for a grant, read the decision on the way back, exchange it for tokens,
// read, and propose an update. The rest of the app (server.ts, pages.ts) never sees a token.

export interface Settings {
  /** The provider's base URL (`npm start` serves one on http://127.0.0.1:8787). */
  readonly providerUrl: string;
  /** This app's client id, registered at the provider (`npx ppx client add`). */
  readonly clientId: string;
  /** Where the provider sends the person back: one of the client's registered redirect URIs. */
  readonly redirectUri: string;
}

/** The keys this app reads: the core key unprefixed, the fragrance ones as `namespace.key`. */
export const KEYS_ASKED = [
  'budget_sensitivity',
  'fragrance.family_preference',
  'fragrance.intensity_preference',
  'fragrance.sweetness_preference',
  'fragrance.freshness_preference',
  'fragrance.note_aversions',
] as const;

/**
 * What the app asks for: only what it uses (six keys of two groups, in the fragrance area), to
 * read them and to suggest changes the person reviews first, for 30 days. The person may narrow
 * it further on the consent page; the grant the app gets is what they kept.
 */
function whatWeAsk(subjectId: string, redirectUri: string): GrantRequest {
  return {
    subject_id: subjectId,
    purposes: ['recommendation'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_claim_keys: [...KEYS_ASKED],
    allowed_operations: ['read', 'propose_update'],
    writeback_policy: 'review_required',
    requested_duration_days: 30,
    redirect_uri: redirectUri,
  };
}

/** How the person's visit to the consent page ended, as read on the way back. */
export type Return =
  | { readonly decision: 'approve'; readonly grantId: string }
  | { readonly decision: 'reject' };

export class Preferences {
  readonly #settings: Settings;
  /**
   * Tokens by grant id, in memory: a restart forgets every connection. A real app keeps them in
   * its database behind the package's `TokenStore` interface (get, set, delete).
   */
  readonly #store = new MemoryTokenStore();
  #client: PpxClient | undefined;

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  /** The client, after discovery; discovery is retried on the next call when the provider was down. */
  async #connect(): Promise<Result<PpxClient>> {
    if (this.#client) return { ok: true, value: this.#client };
    const provider = await discover(this.#settings.providerUrl);
    if (!provider.ok) return provider;
    this.#client = new PpxClient(provider.value, { clientId: this.#settings.clientId, store: this.#store });
    return { ok: true, value: this.#client };
  }

  /** Asks for a grant: send the person to `consentUrl`, and keep the whole answer until they return. */
  async ask(subjectId: string): Promise<Result<PendingGrant>> {
    const client = await this.#connect();
    if (!client.ok) return client;
    return client.value.requestGrant(whatWeAsk(subjectId, this.#settings.redirectUri));
  }

  /**
   * The person is back at the redirect URI: their decision from the URL (a return that belongs to
   * another request is `state_mismatch`), and on approval the tokens over the back channel.
   */
  async comeBack(url: URL, pending: PendingGrant): Promise<Result<Return>> {
    const decision = decisionFromRedirect(url, pending);
    if (!decision.ok) return decision;
    if (decision.value === 'reject') return { ok: true, value: { decision: 'reject' } };
    const client = await this.#connect();
    if (!client.ok) return client;
    const tokens = await client.value.exchange(pending);
    if (!tokens.ok) return tokens;
    return { ok: true, value: { decision: 'approve', grantId: tokens.value.grantId } };
  }

  /** What the grant shows of the person's preferences, under a context such as `{occasion: "office"}`. */
  async read(grantId: string, context?: Context): Promise<Result<EffectiveProfile>> {
    const grant = await this.#grant(grantId);
    return grant.ok ? grant.value.effective(context) : grant;
  }

  /**
   * Tells the provider the person liked a scent of `family`: their liking for that family, a little
   * higher. The answer says whether it was applied, is waiting for the person's review, or refused.
   */
  async liked(
    grantId: string,
    families: Record<string, number>,
    family: string,
  ): Promise<Result<ProposeResult>> {
    const grant = await this.#grant(grantId);
    if (!grant.ok) return grant;
    const raised = Math.min(1, Math.round(((families[family] ?? 0.5) + 0.05) * 100) / 100);
    return grant.value.propose([
      {
        type: 'preference',
        namespace: 'fragrance',
        key: 'family_preference',
        value: { ...families, [family]: raised },
        value_type: 'map<string,float>',
        confidence: 0.6,
        // Observed, not stated: the person clicked a button here; they confirm it at their provider.
        source: { kind: 'observed', origin: 'fragrance-suggester' },
      },
    ]);
  }

  /**
   * Ends this app's access: the provider is told (the grant is revoked there, as if the person had
   * stopped it) and the tokens are forgotten. Revoking an access that already ended is no error.
   */
  async disconnect(grantId: string): Promise<Result<void>> {
    const client = await this.#connect();
    return client.ok ? client.value.revoke(grantId) : client;
  }

  async #grant(grantId: string): Promise<Result<Grant>> {
    const client = await this.#connect();
    return client.ok ? { ok: true, value: new Grant(client.value, grantId) } : client;
  }
}

/**
 * Whether an error means the access is over: the person stopped it at their provider (or a
 * leaked refresh token was used twice), or it expired. The package has then deleted the tokens;
 * the app forgets the grant and offers to connect again.
 */
export function accessEnded(
  error: ClientError,
): error is ClientError & { readonly code: 'grant_revoked' | 'grant_expired' } {
  return error.code === 'grant_revoked' || error.code === 'grant_expired';
}
