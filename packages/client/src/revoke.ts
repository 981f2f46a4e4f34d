import type { PpxClient } from './client.ts';
import { type Answer, errorOf } from './http.ts';
import { fail, ok, type Result } from './result.ts';
import { PACKAGE_PREFIX, type StoredTokens } from './token-store.ts';

// The app ending its own access (docs/client-library.md): the provider is told first, then the
// tokens are forgotten. Which endpoint says it:
//
// - a grant package: the package disconnect endpoint (WIRE-NOTES §4) when the metadata names one,
//   else RFC 7009 revocation, which at this provider ends every child too;
// - one grant: RFC 7009 revocation when the metadata names an endpoint (it takes the refresh
//   token, so it works with an expired access token and without spending a refresh); else the
//   consent-v2 way, `POST /v1/consent/revoke {grant_id}` under the grant's own token (SPEC §9: a
//   grantee may give up its own grant).
//
// An access that has already ended (revoked, expired, a reused refresh token) is what was asked
// for, so it is not an error. A failure to reach the provider is, and the tokens are then kept, so
// that the app can try again.

export async function endAccess(client: PpxClient, grantId: string): Promise<Result<void>> {
  const t = await client.store.get(grantId);
  if (t === undefined) return fail('not_found', `no tokens are kept for grant ${grantId}`, { grantId });
  const said = grantId.startsWith(PACKAGE_PREFIX)
    ? await disconnectPackage(client, t)
    : await revokeGrant(client, t);
  if (!said.ok) return said;
  await client.store.delete(grantId);
  return ok(undefined);
}

async function disconnectPackage(client: PpxClient, t: StoredTokens): Promise<Result<void>> {
  const meta = client.provider.oauth;
  const url = meta?.pdpp_package_disconnect_endpoint ?? meta?.revocation_endpoint;
  if (url === undefined) {
    return fail('not_found', 'this provider names no endpoint that ends a grant package');
  }
  return emptyAnswer(await client.oauthForm(url, tokenParams(t)));
}

async function revokeGrant(client: PpxClient, t: StoredTokens): Promise<Result<void>> {
  const endpoint = client.provider.oauth?.revocation_endpoint;
  if (endpoint !== undefined) return emptyAnswer(await client.oauthForm(endpoint, tokenParams(t)));
  const r = await client.authorized(t.grantId, 'POST', '/v1/consent/revoke', { grant_id: t.grantId });
  if (!r.ok) return hasEnded(r.error.code) ? ok(undefined) : r;
  if (r.value.status === 200) return ok(undefined);
  const e = errorOf(r.value);
  return hasEnded(e.code) ? ok(undefined) : { ok: false, error: e };
}

/** RFC 7009 §2.1: the refresh token when there is one (it ends the family too), else the access token. */
function tokenParams(t: StoredTokens): Record<string, string> {
  return t.refreshToken !== undefined
    ? { token: t.refreshToken, token_type_hint: 'refresh_token' }
    : { token: t.accessToken, token_type_hint: 'access_token' };
}

/** RFC 7009 §2.2: 200 whether or not the token was still alive; anything else is an error. */
function emptyAnswer(r: Result<Answer>): Result<void> {
  if (!r.ok) return r;
  return r.value.status === 200 ? ok(undefined) : { ok: false, error: errorOf(r.value) };
}

function hasEnded(code: string): boolean {
  return code === 'grant_revoked' || code === 'grant_expired';
}
