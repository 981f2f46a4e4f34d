import { consentRequestBody, type PendingGrant } from './consent.ts';
import type { Provider } from './discovery.ts';
import type { DpopKey } from './dpop.ts';
import { type Answer, bodyOf, errorOf, type Fetch, JSON_HEADERS, send } from './http.ts';
import { fail, ok, type Result } from './result.ts';
import { endAccess } from './revoke.ts';
import { MemoryTokenStore, PACKAGE_PREFIX, type StoredTokens, type TokenStore } from './token-store.ts';
import type { GrantRequest, Tokens } from './types.ts';

export interface ClientOptions {
  /** A registered client id, or the https URL of this app's client ID metadata document. */
  readonly clientId: string;
  /** A confidential client's secret: a server app only, never a browser. */
  readonly clientSecret?: string;
  /** How a confidential client authenticates at the OAuth token endpoint (default: basic when offered). */
  readonly authMethod?: 'client_secret_basic' | 'client_secret_post';
  readonly store?: TokenStore;
  /** A DPoP key: tokens are then bound to it when the provider offers DPoP (`DpopKey.generate()`). */
  readonly dpop?: DpopKey;
  readonly fetch?: Fetch;
}

/** A token endpoint's answer: the tokens as kept in the store, and the body as it came (a package's outcomes). */
export interface TokenAnswer {
  readonly tokens: StoredTokens;
  readonly body: Tokens & Readonly<Record<string, unknown>>;
}

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 30_000;

/**
 * A grantee of one provider: asks for grants, exchanges the person's approval for tokens, keeps
 * them fresh, and makes authorized requests. Reads are in `grant.ts`.
 */
export class PpxClient {
  readonly provider: Provider;
  readonly options: ClientOptions;
  readonly store: TokenStore;
  readonly #fetch: Fetch;
  /** One refresh at a time per grant: a second concurrent refresh would end the family (reuse). */
  readonly #refreshing = new Map<string, Promise<Result<StoredTokens>>>();

  constructor(provider: Provider, options: ClientOptions) {
    this.provider = provider;
    this.options = options;
    this.store = options.store ?? new MemoryTokenStore();
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The DPoP key, when there is one and the provider offers DPoP. */
  get #dpop(): DpopKey | undefined {
    return this.provider.dpop ? this.options.dpop : undefined;
  }

  /** consent-v2 step 1: asks for a grant; send the person to `consentUrl`. */
  async requestGrant(request: GrantRequest): Promise<Result<PendingGrant>> {
    const { body, verifier } = await consentRequestBody(this.options.clientId, request);
    const answer = await this.#post('/v1/consent/request', body);
    if (!answer.ok) return answer;
    const r = bodyOf<{
      grant_request_id: string;
      consent_url: string;
      request_token: string;
      expires_at: string;
    }>(answer.value);
    if (!r.ok) return r;
    return ok({
      grantRequestId: r.value.grant_request_id,
      consentUrl: r.value.consent_url,
      requestToken: r.value.request_token,
      codeVerifier: verifier,
      expiresAt: r.value.expires_at,
    });
  }

  /**
   * consent-v2 step 3, over the back channel: the approval exchanged for tokens, kept in the store.
   * Every failure (not decided yet, refused, expired, already exchanged) is `invalid_grant`.
   */
  async exchange(pending: PendingGrant): Promise<Result<StoredTokens>> {
    return tokensOf(
      await this.#tokenRequest(`${this.provider.baseUrl}/v1/consent/token`, 'consent', {
        grant_request_id: pending.grantRequestId,
        request_token: pending.requestToken,
        code_verifier: pending.codeVerifier,
        client_id: this.options.clientId,
        ...(this.options.clientSecret !== undefined ? { client_secret: this.options.clientSecret } : {}),
      }),
    );
  }

  /**
   * Tokens for a grant, refreshed first when the access token is about to expire; a grant that
   * ended is `grant_revoked` or `grant_expired`.
   */
  async tokens(grantId: string): Promise<Result<StoredTokens>> {
    const t = await this.store.get(grantId);
    if (t === undefined) return fail('not_found', `no tokens are kept for grant ${grantId}`, { grantId });
    if (t.expiresAt - Date.now() > REFRESH_MARGIN_MS) return ok(t);
    return this.refresh(grantId);
  }

  /**
   * A new access token and a rotated refresh token, replacing the old ones in the store. Calls
   * that overlap share one request. When the access has ended: `grant_revoked` (the person or
   * the app ended it, or a refresh token was presented twice) or `grant_expired`.
   */
  refresh(grantId: string): Promise<Result<StoredTokens>> {
    const running = this.#refreshing.get(grantId);
    if (running) return running;
    const started = this.#refreshOnce(grantId).finally(() => this.#refreshing.delete(grantId));
    this.#refreshing.set(grantId, started);
    return started;
  }

  async #refreshOnce(grantId: string): Promise<Result<StoredTokens>> {
    const t = await this.store.get(grantId);
    if (t === undefined) return fail('not_found', `no tokens are kept for grant ${grantId}`, { grantId });
    if (t.refreshToken === undefined) {
      await this.store.delete(grantId);
      return fail(
        'grant_expired',
        'this access has ended (a single-use grant has no refresh token): ask again',
        {
          grantId,
        },
      );
    }
    const r = tokensOf(
      t.via === 'consent'
        ? await this.#tokenRequest(`${this.provider.baseUrl}/v1/consent/refresh`, 'consent', {
            client_id: this.options.clientId,
            refresh_token: t.refreshToken,
            ...(this.options.clientSecret !== undefined ? { client_secret: this.options.clientSecret } : {}),
          })
        : await this.oauthTokenRequest({ grant_type: 'refresh_token', refresh_token: t.refreshToken }),
    );
    if (r.ok) return r;
    const ended = endOfAccess(r.error.code, r.error.description, r.error.status);
    if (ended === undefined) return r;
    await this.store.delete(grantId);
    return fail(ended, r.error.description, {
      ...(r.error.status ? { status: r.error.status } : {}),
      grantId,
    });
  }

  /** A form POST to the OAuth token endpoint, with the client's authentication: the tokens, kept, and the answer's body. */
  oauthTokenRequest(params: Record<string, string>): Promise<Result<TokenAnswer>> {
    const meta = this.provider.oauth;
    if (meta === undefined)
      return Promise.resolve(fail('not_found', 'this provider has no OAuth authorization server'));
    const { form, headers } = this.#authenticated(params);
    return this.#tokenRequest(meta.token_endpoint, 'oauth', form, headers);
  }

  /**
   * A form POST to another OAuth endpoint of the provider (revocation, package disconnect), with
   * the client's authentication; the answer as it came.
   */
  oauthForm(url: string, params: Record<string, string>): Promise<Result<Answer>> {
    const { form, headers } = this.#authenticated(params);
    return send(this.#fetch, url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams(form).toString(),
    });
  }

  /**
   * Ends this app's access under a grant (or a grant package) and forgets its tokens: see
   * revoke.ts for which endpoint says it. Revoking what has already ended is not an error.
   */
  revoke(grantId: string): Promise<Result<void>> {
    return endAccess(this, grantId);
  }

  /** The client's authentication for an OAuth endpoint: none (public), Basic, or the secret in the form. */
  #authenticated(params: Record<string, string>) {
    const { clientId, clientSecret } = this.options;
    const headers: Record<string, string> = {};
    const form: Record<string, string> = { ...params, client_id: clientId };
    if (clientSecret !== undefined) {
      const methods = this.provider.oauth?.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
      const method =
        this.options.authMethod ??
        (methods.includes('client_secret_basic') ? 'client_secret_basic' : 'client_secret_post');
      if (method === 'client_secret_basic') {
        const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
        headers['authorization'] = `Basic ${btoa(`${enc(clientId)}:${enc(clientSecret)}`)}`;
        delete form['client_id'];
      } else {
        form['client_secret'] = clientSecret;
      }
    }
    return { form, headers };
  }

  /** POSTs to a token endpoint (with a DPoP proof when bound), keeps the tokens it answers. */
  async #tokenRequest(
    url: string,
    via: StoredTokens['via'],
    body: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Result<TokenAnswer>> {
    const encoded =
      via === 'oauth'
        ? { type: 'application/x-www-form-urlencoded', text: new URLSearchParams(body).toString() }
        : { type: 'application/json', text: JSON.stringify(body) };
    const attempt = async () => {
      const proof: Record<string, string> = this.#dpop ? { dpop: await this.#dpop.proof('POST', url) } : {};
      return send(this.#fetch, url, {
        method: 'POST',
        headers: { ...headers, ...proof, 'content-type': encoded.type, accept: 'application/json' },
        body: encoded.text,
      });
    };
    let answer = await attempt();
    if (!answer.ok) return answer;
    if (this.#dpop?.remember(url, answer.value.headers) && errorOf(answer.value).code === 'use_dpop_nonce') {
      answer = await attempt();
      if (!answer.ok) return answer;
    }
    const r = bodyOf<TokenAnswer['body']>(answer.value);
    if (!r.ok) return r;
    const key = storeKey(r.value);
    if (key === undefined) return fail('invalid_response', 'the token answer names no grant');
    const tokens: StoredTokens = {
      grantId: key,
      accessToken: r.value.access_token,
      tokenType: r.value.token_type,
      expiresAt: Date.now() + r.value.expires_in * 1000,
      via,
      ...(r.value.refresh_token !== undefined ? { refreshToken: r.value.refresh_token } : {}),
      ...(r.value.grant_ids !== undefined ? { grantIds: r.value.grant_ids } : {}),
    };
    await this.store.set(tokens);
    return ok({ tokens, body: r.value });
  }

  /**
   * An authorized request for a grant (`path` under the base URL, or an absolute URL of the
   * provider such as its MCP endpoint): the access token (as `Bearer`, or `DPoP` with a proof
   * when bound), refreshed before it expires and once more if the provider says it has.
   */
  async authorized(
    grantId: string,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    extraHeaders: Readonly<Record<string, string>> = {},
  ): Promise<Result<Answer>> {
    const t = await this.tokens(grantId);
    if (!t.ok) return t;
    const call = (tokens: StoredTokens) => this.#resource(tokens, method, path, body, extraHeaders);
    let answer = await call(t.value);
    if (!answer.ok) return answer;
    const code = errorOf(answer.value).code;
    if (answer.value.status === 401 && code === 'use_dpop_nonce') {
      answer = await call(t.value);
    } else if (
      answer.value.status === 401 &&
      code === 'invalid_token' &&
      t.value.refreshToken !== undefined
    ) {
      const fresh = await this.refresh(grantId);
      if (!fresh.ok) return fresh;
      answer = await call(fresh.value);
    }
    if (answer.ok) {
      const e = errorOf(answer.value);
      if (answer.value.status === 401 && (e.code === 'grant_revoked' || e.code === 'grant_expired')) {
        await this.store.delete(grantId);
      }
    }
    return answer;
  }

  async #resource(
    t: StoredTokens,
    method: string,
    path: string,
    body: unknown,
    extraHeaders: Readonly<Record<string, string>>,
  ): Promise<Result<Answer>> {
    const url = /^https?:\/\//.test(path) ? path : `${this.provider.baseUrl}${path}`;
    const headers: Record<string, string> = {
      ...JSON_HEADERS,
      ...extraHeaders,
      authorization: `${t.tokenType} ${t.accessToken}`,
    };
    if (t.tokenType === 'DPoP') {
      if (this.options.dpop === undefined)
        return fail('invalid_dpop_proof', 'this token is DPoP-bound and the client has no DPoP key');
      headers['dpop'] = await this.options.dpop.proof(method, url, t.accessToken);
    }
    const answer = await send(this.#fetch, url, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (answer.ok) this.options.dpop?.remember(url, answer.value.headers);
    return answer;
  }

  async #post(path: string, body: unknown) {
    return send(this.#fetch, `${this.provider.baseUrl}${path}`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(body),
    });
  }
}

/**
 * What a refused refresh means (docs/consent-flow.md): 410 `grant_gone` is the family ended by the
 * person, the app or a reuse; an `invalid_grant` naming a reuse or an expiry says the same in the
 * words RFC 6749 allows. Anything else is not the end of the access.
 */
function endOfAccess(
  code: string,
  description: string,
  status?: number,
): 'grant_revoked' | 'grant_expired' | undefined {
  if (code === 'grant_gone' || status === 410 || code === 'grant_revoked') return 'grant_revoked';
  if (code === 'grant_expired') return 'grant_expired';
  // The OAuth token endpoint's words for who ended it (RFC 6749 §5.2 has no 410): the person, the
  // app itself, or a refresh token presented twice.
  if (
    code === 'invalid_grant' &&
    /already used once|ended this access|this access was ended/.test(description)
  )
    return 'grant_revoked';
  if (code === 'invalid_grant' && /has expired/.test(description)) return 'grant_expired';
  return undefined;
}

/** The store key of a token answer: its grant, or for a grant package its first child, marked. */
function storeKey(body: Tokens): string | undefined {
  if (body.grant_id !== undefined) return body.grant_id;
  const first = body.grant_ids?.[0];
  return first === undefined ? undefined : `${PACKAGE_PREFIX}${first}`;
}

function tokensOf(r: Result<TokenAnswer>): Result<StoredTokens> {
  return r.ok ? ok(r.value.tokens) : r;
}
