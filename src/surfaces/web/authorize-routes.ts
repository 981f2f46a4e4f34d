import type { Context, Hono } from 'hono';
import {
  type AuthorizationRequest,
  checkAuthorization,
  startOAuthConsent,
} from '../../operations/oauth/authorize.ts';
import { authorizationResponse } from '../../operations/oauth/redirect.ts';
import { clientAddress, limitRequest, oauthRateLimited } from '../shared/rate-limit.ts';
import { currentSession } from '../shared/session.ts';
import { send, type WebContext } from './respond.ts';
import { RETURN_TO_LIMIT } from './session.ts';
import { messagePage } from './signin.ts';

// The OAuth 2.1 authorization endpoint (RFC 6749 §4.1.1, WIRE-NOTES §3, docs/oauth.md). It is a
// page a browser visits, so it lives with the pages: it reads the sign-in session, shows its
// problems as pages, and hands the person to the consent page. The back-channel endpoints
// (token, registration, revocation, introspection) are the oauth surface's.

/** The longest Location the authorize endpoint sends to sign-in (headers end at 16 KiB). */
const LOCATION_LIMIT = 12 * 1024;

export function registerAuthorizeRoutes(app: Hono, web: WebContext, allowDevClientMetadata: boolean): void {
  const deps = web.deps;
  app.get('/oauth/authorize', async (c) => {
    // The authorization server's budget, per address, as its other endpoints count it.
    const limited = await limitRequest(deps, 'oauth', () => `oauth:${clientAddress(c)}`);
    if (limited?.allowed === false) return oauthRateLimited(limited);
    // Client and redirect_uri are checked first: until both are verified, any problem is shown
    // here and the browser is never sent to the URI (§4.1.2.1).
    const url = new URL(c.req.url);
    // No prototype: a parameter named `constructor` or `__proto__` is a parameter like any other.
    const params: Record<string, string[]> = Object.create(null);
    for (const [k, v] of url.searchParams) params[k] = [...(params[k] ?? []), v];
    const check = await checkAuthorization(deps, params, { allowDev: allowDevClientMetadata });
    if (check.kind === 'page') {
      const text = `${check.problem.description}. The app that sent you here is misconfigured; nothing was shared.`;
      return send(c, messagePage(deps.provider.name, 'This sign-in link is not valid', text), 400);
    }
    if (check.kind === 'redirect') return c.redirect(check.to, 302);
    const session = await currentSession(c, deps, web.plan);
    if (!session) {
      const back = url.pathname + url.search;
      const signIn = `/signin?return_to=${encodeURIComponent(back)}`;
      // Sign-in drops a return path past its limit, and a Location past Node's 16 KiB header
      // limit never arrives: either way the request would be lost, so say so instead.
      if (back.length > RETURN_TO_LIMIT || signIn.length > LOCATION_LIMIT) {
        const text =
          'The request is too long to be carried through sign-in. The app that sent you here should ask for less; nothing was shared.';
        return send(c, messagePage(deps.provider.name, 'This sign-in link is too long', text), 400);
      }
      return c.redirect(signIn, 302);
    }
    return startConsent(c, web, session.record.subject_id, check.request);
  });
}

/**
 * Creates the consent request for the signed-in subject and sends the browser to the consent
 * page. What the page decides comes back to the client as code + state + iss (RFC 9207).
 */
async function startConsent(c: Context, web: WebContext, subjectId: string, request: AuthorizationRequest) {
  const created = await startOAuthConsent(web.deps, subjectId, request);
  if (created.ok) return c.redirect(`/consent/${encodeURIComponent(created.value.grant_request_id)}`, 302);
  // Too many apps already waiting for this person (pending-caps.ts): RFC 6749 §4.1.2.1's code for
  // a request that may succeed later. Otherwise namespaces or keys this provider does not hold.
  const error =
    created.error.code === 'rate_limited' ? 'temporarily_unavailable' : 'invalid_authorization_details';
  const back = authorizationResponse(web.deps, request.redirect_uri, request.state, {
    error,
    description: created.error.description,
  });
  return c.redirect(back, 302);
}
