import { randomToken } from './base64url.ts';
import type { PpxClient, TokenAnswer } from './client.ts';
import { createPkce } from './pkce.ts';
import { fail, ok, type Result } from './result.ts';
import type { StoredTokens } from './token-store.ts';

/** An OAuth 2.1 authorization in progress: keep it until the browser comes back. */
export interface PendingAuthorization {
  /** Where to send the person's browser. */
  readonly url: string;
  readonly state: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
}

export interface AuthorizationRequest {
  readonly redirectUri: string;
  /** Scopes such as `ppx:read ppx:query`, or … */
  readonly scope?: string;
  /** … RFC 9396 `authorization_details` describing the grant(s) precisely. */
  readonly authorizationDetails?: readonly Record<string, unknown>[];
  /**
   * RFC 8707 resource: the tokens' audience. Default: the provider's base URL, the HTTP API that
   * `Grant` reads (the provider's own default is its MCP endpoint).
   */
  readonly resource?: string;
}

/** The authorization-code request with PKCE S256 and a random state. */
export async function authorizationUrl(
  client: PpxClient,
  request: AuthorizationRequest,
): Promise<Result<PendingAuthorization>> {
  const meta = client.provider.oauth;
  if (meta === undefined) return fail('not_found', 'this provider has no OAuth authorization server');
  const clientId = client.options.clientId;
  if (/^https:\/\//.test(clientId) && meta.client_id_metadata_document_supported !== true) {
    return fail('unauthorized_client', 'this provider does not read client ID metadata documents');
  }
  const pkce = await createPkce();
  const state = randomToken(16);
  const url = new URL(meta.authorization_endpoint);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', clientId);
  q.set('redirect_uri', request.redirectUri);
  q.set('code_challenge', pkce.challenge);
  q.set('code_challenge_method', pkce.method);
  q.set('state', state);
  if (request.scope !== undefined) q.set('scope', request.scope);
  if (request.authorizationDetails !== undefined) {
    q.set('authorization_details', JSON.stringify(request.authorizationDetails));
  }
  q.set('resource', request.resource ?? client.provider.baseUrl);
  return ok({ url: url.href, state, codeVerifier: pkce.verifier, redirectUri: request.redirectUri });
}

/** The browser's return (`?code=…&state=…`, or `?error=…`) exchanged for tokens, kept in the store. */
export async function exchangeCode(
  client: PpxClient,
  callback: string | URL,
  pending: PendingAuthorization,
): Promise<Result<StoredTokens>> {
  const code = codeFromReturn(client, callback, pending);
  if (!code.ok) return code;
  const r = await codeRequest(client, code.value, pending);
  return r.ok ? ok(r.value.tokens) : r;
}

/** The code of the browser's return, once it is known to answer this authorization (state, RFC 9207 iss). */
export function codeFromReturn(
  client: PpxClient,
  callback: string | URL,
  pending: PendingAuthorization,
): Result<string> {
  const q = new URL(callback).searchParams;
  if (q.get('state') !== pending.state)
    return fail('state_mismatch', 'this return to the app is not for this authorization');
  const iss = q.get('iss');
  if (iss !== null && iss !== client.provider.oauth?.issuer) {
    return fail('state_mismatch', 'this return names another authorization server (RFC 9207)');
  }
  const error = q.get('error');
  if (error !== null) return fail(error as 'access_denied', q.get('error_description') ?? error);
  const code = q.get('code');
  if (code === null) return fail('invalid_response', 'the return to the app carries no code');
  return ok(code);
}

/** The authorization code at the token endpoint: the tokens and the whole answer (a package's outcomes). */
export function codeRequest(
  client: PpxClient,
  code: string,
  pending: PendingAuthorization,
): Promise<Result<TokenAnswer>> {
  return client.oauthTokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: pending.redirectUri,
    code_verifier: pending.codeVerifier,
  });
}

/**
 * A client ID metadata document for this app: serve it as JSON at the https URL that is its
 * `client_id`. A document may only describe a public client (`token_endpoint_auth_method: none`).
 */
export function clientMetadataDocument(doc: {
  readonly client_id: string;
  readonly client_name: string;
  readonly redirect_uris: readonly string[];
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly dpop_bound_access_tokens?: boolean;
}): Record<string, unknown> {
  return {
    ...doc,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}
