import type { GrantRequestRecord } from '../../model/grant-request.ts';
import type { Deps } from '../deps.ts';

/**
 * The authorization response (RFC 6749 §4.1.2 and §4.1.2.1, RFC 9207 §2): the client's redirect
 * URI with the code or the error, the client's `state`, and `iss` naming this provider.
 */
export function authorizationResponse(
  deps: Deps,
  redirectUri: string,
  state: string | undefined,
  answer: { readonly code: string } | { readonly error: string; readonly description?: string },
): string {
  const url = new URL(redirectUri);
  if ('code' in answer) {
    url.searchParams.set('code', answer.code);
  } else {
    url.searchParams.set('error', answer.error);
    if (answer.description !== undefined) url.searchParams.set('error_description', answer.description);
  }
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', deps.provider.baseUrl);
  return url.href;
}

/**
 * RFC 6749 §4.1.3: a redirect_uri the authorization request named must be sent again, identical.
 * One it left out (the client's only registered URI was used, OAuth 2.1 §4.1.1) may be left out
 * here too; sent anyway, it must be that URI.
 */
export function sameRedirect(sent: string | undefined, request: GrantRequestRecord): boolean {
  if (sent === undefined) return request.oauth?.redirect_uri_omitted === true;
  return sent === request.redirect_uri;
}
