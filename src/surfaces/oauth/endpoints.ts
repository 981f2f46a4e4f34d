import type { Context, Hono } from 'hono';
import type { ClientRecord } from '../../model/client.ts';
import { fail, type PpxFailure, type Result } from '../../model/errors.ts';
import type { Deps } from '../../operations/deps.ts';
import { authenticateClient, confidentialClient } from '../../operations/oauth/clients.ts';
import {
  disconnectPackage,
  type Introspector,
  introspect,
  revokeToken,
  subjectIntrospector,
} from '../../operations/oauth/introspect.ts';
import { REGISTRATION_BODY_LIMIT, registerDynamicClient } from '../../operations/oauth/register.ts';
import { exchangeCode, refreshTokens } from '../../operations/oauth/token.ts';
import { checkProof, currentNonce } from '../../operations/tokens/dpop-proof.ts';
import { resourceMetadataUrl } from '../../operations/tokens/resources.ts';
import { readBearer } from '../shared/bearer.ts';
import { errorResponse } from '../shared/errors.ts';
import {
  type AnswerStyle,
  clientCredentials,
  emptyAnswer,
  oauthError,
  oauthJson,
  readJson,
  readParams,
} from './form.ts';

// The back-channel endpoints: token (RFC 6749 §3.2), registration (RFC 7591 §3), revocation
// (RFC 7009 §2) and introspection (RFC 7662 §2). Each only translates; the rules live in
// src/operations/oauth/.

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;

/** The endpoints registered here (CORS and the rate limit apply to each: mount.ts). */
export const BACK_CHANNEL_PATHS = [
  '/oauth/token',
  '/oauth/register',
  '/oauth/revoke',
  '/oauth/package/disconnect',
  '/oauth/introspect',
];

export function registerOAuthEndpoints(app: App, deps: Deps, limit: number): void {
  // Introspection is not CORS-open (it answers only authenticated callers: mount.ts); the others are.
  const baseUrl = deps.provider.baseUrl;
  const open: AnswerStyle = { baseUrl, cors: true };
  const closed: AnswerStyle = { baseUrl, cors: false };

  app.post('/oauth/token', async (c) => {
    const params = await readParams(c, limit);
    if (!params.ok) return oauthError(open, params.error);
    const p = params.value;
    const creds = clientCredentials(c, p);
    if (!creds.ok) return oauthError(open, creds.error);
    const client = await authenticateClient(deps, creds.value);
    if (!client.ok) return oauthError(open, client.error);
    // RFC 9449 §5: a DPoP proof binds the tokens to its key; a bad one refuses the request.
    const nonce = currentNonce(deps);
    const header = c.req.header('dpop');
    const proof =
      header === undefined
        ? undefined
        : await checkProof(deps, header, { method: 'POST', path: '/oauth/token' });
    if (proof !== undefined && !proof.ok) return oauthError(open, proof.error, nonce);
    const dpop = proof?.ok ? { jkt: proof.value.jkt } : undefined;
    const grantType = p['grant_type'];
    const result =
      grantType === 'authorization_code'
        ? await exchangeCode(deps, client.value, {
            code: p['code'],
            redirect_uri: p['redirect_uri'],
            code_verifier: p['code_verifier'],
            resource: p['resource'],
            dpop,
          })
        : grantType === 'refresh_token'
          ? await refreshTokens(deps, client.value, {
              refresh_token: p['refresh_token'],
              resource: p['resource'],
              scope: p['scope'],
              client_secret: creds.value.client_secret,
              dpop,
            })
          : fail('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    return result.ok ? oauthJson(open, result.value, 200, nonce) : oauthError(open, result.error, nonce);
  });

  app.post('/oauth/register', async (c) => {
    // A registration is small (issue 22 item 12): the body is read up to its own bound.
    const body = await readJson(c, Math.min(limit, REGISTRATION_BODY_LIMIT));
    if (!body.ok) return oauthError(open, body.error);
    const registered = await registerDynamicClient(deps, body.value);
    return registered.ok ? oauthJson(open, registered.value, 201) : oauthError(open, registered.error);
  });

  app.post('/oauth/revoke', async (c) => {
    const req = await tokenRequest(c, deps, limit);
    if (!req.ok) return oauthError(open, req.error);
    // token_type_hint is optional and only a hint (§2.1): both kinds are looked up anyway.
    await revokeToken(deps, req.value.client, req.value.token);
    return emptyAnswer(open, 200);
  });

  // WIRE-NOTES §4: the package disconnect endpoint, in the shape of RFC 7009.
  app.post('/oauth/package/disconnect', async (c) => {
    const req = await tokenRequest(c, deps, limit);
    if (!req.ok) return oauthError(open, req.error);
    const outcome = await disconnectPackage(deps, req.value.client, req.value.token);
    if (outcome === 'not_a_package') {
      // RFC 7009 §2.2.1's code for a token this endpoint does not handle.
      return oauthJson(
        open,
        { error: 'unsupported_token_type', error_description: 'this is not a grant-package token' },
        400,
      );
    }
    return emptyAnswer(open, 200);
  });

  app.post('/oauth/introspect', async (c) => {
    const params = await readParams(c, limit);
    if (!params.ok) return oauthError(closed, params.error);
    const who = await introspector(c, deps, params.value);
    if ('code' in who) {
      if (who.code === 'invalid_client') return oauthError(closed, who);
      // A subject's bearer token that failed: the HTTP API's token, named by its metadata.
      return errorResponse(who, { resourceMetadata: resourceMetadataUrl(deps.provider, 'api') });
    }
    const token = params.value['token'];
    if (token === undefined) return oauthError(closed, missingToken());
    return oauthJson(closed, await introspect(deps, who, token));
  });
}

/** RFC 7009 §2.1: an authenticated client and the `token` it names. */
async function tokenRequest(
  c: Context,
  deps: Deps,
  limit: number,
): Promise<Result<{ client: ClientRecord; token: string }>> {
  const params = await readParams(c, limit);
  if (!params.ok) return params;
  const creds = clientCredentials(c, params.value);
  if (!creds.ok) return creds;
  const client = await authenticateClient(deps, creds.value);
  if (!client.ok) return client;
  const token = params.value['token'];
  if (token === undefined) return { ok: false, error: missingToken() };
  return { ok: true, value: { client: client.value, token } };
}

function missingToken(): PpxFailure {
  return { code: 'invalid_request', description: 'token is required' };
}

/** RFC 7662 §2.1: the caller authenticates: a confidential client, or a subject's bearer token. */
async function introspector(
  c: Context,
  deps: Deps,
  params: Record<string, string>,
): Promise<Introspector | PpxFailure> {
  const bearer = readBearer(c.req.header('authorization'));
  if (bearer?.ok) {
    const who = await subjectIntrospector(deps, bearer.value);
    return who.ok ? who.value : who.error;
  }
  const creds = clientCredentials(c, params);
  if (!creds.ok) return creds.error;
  const client = await confidentialClient(deps, creds.value);
  return client.ok ? { kind: 'client', client: client.value } : client.error;
}
