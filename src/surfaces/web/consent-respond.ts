import type { Context } from 'hono';
import type { PpxFailure } from '../../model/errors.ts';
import { signedInName } from '../../operations/accounts/subjects-and-sessions.ts';
import type { ConsentView, DecisionOutcome } from '../../operations/consent/preview.ts';
import { decidedUrl } from '../../operations/consent/request.ts';
import type { WebSession } from '../shared/session.ts';
import { html, type SafeHtml } from './escape.ts';
import type { PageContext } from './grant-sections.ts';
import { providerName, send, type WebContext } from './respond.ts';
import { messagePage, signOutForm } from './signin.ts';

// What the consent routes answer besides the consent page itself: shared by the single-request
// decision and the package decision.

export function consentPath(id: string): string {
  return `/consent/${encodeURIComponent(id)}`;
}

/**
 * The decision 303-redirects to the request's redirect URI (checked against the registration
 * when the request was made), and Chromium checks `form-action` against a form's redirects too:
 * without this source the browser would stop after the decision was already recorded. An origin,
 * or the scheme alone for a native app's private-use scheme (whose origin is opaque). None for a
 * back-channel request: its decision ends on this provider's own page ('self').
 */
export function formTargets(redirectUri: string | undefined): readonly string[] {
  if (redirectUri === undefined) return [];
  const url = new URL(redirectUri);
  return [url.origin !== 'null' ? url.origin : url.protocol];
}

/**
 * Where the browser goes after a decision: the request's redirect URI, unless the client no
 * longer has it registered (the operator replaced its URIs after the request was made); then the
 * provider's own closing page, so that no browser is sent to an address nobody vouches for now.
 */
export function leaveTo(web: WebContext, view: ConsentView, redirectTo: string): string {
  return view.redirectVerified ? redirectTo : decidedUrl(web.deps, view.request.grant_request_id);
}

/** Why an approval is refused when the redirect URI is no longer registered (see leaveTo). */
export const UNREGISTERED_REDIRECT =
  'This app’s return address is no longer registered for it, so it cannot be allowed; nothing was shared. You can reject the request, or ask the app to start again.';

/** A request the signed-in subject cannot decide on: another account's (or none), decided, expired. */
export function deadEnd(c: Context, web: WebContext, failure: PpxFailure, session: WebSession): Response {
  const name = providerName(web);
  if (failure.code === 'conflict') {
    return send(
      c,
      messagePage(name, 'This request is closed', `${capitalize(failure.description)}. Nothing was changed.`),
      409,
    );
  }
  if (failure.code === 'not_found') {
    // Another account's request reads exactly as one that never existed (docs/consent-flow.md,
    // "Deciding"): the page must not tell a signed-in person that an id is in use.
    return send(
      c,
      messagePage(
        name,
        'This request does not exist or has expired',
        'There is no open request at this address for the account you are signed in with. If an app sent you here, ask it to start again. If the request was meant for another account of yours, sign out and sign in with that one.',
        html`<p>${signOutForm(session.csrf)}</p>`,
      ),
      404,
    );
  }
  return send(c, messagePage(name, 'Request refused', capitalize(failure.description)), 403);
}

/**
 * The provider's own last page, where a back-channel request's decision ends (WIRE-NOTES §2.1):
 * the app learns the answer from the provider, so the person only needs to know they are done.
 * Only the request's own subject is told what was decided.
 */
export function closingPage(name: string, decided: DecisionOutcome | undefined): SafeHtml {
  const more = html`<p><a href="/app">See who can use your preferences now</a>.</p>`;
  if (decided?.outcome === 'allowed') {
    return messagePage(
      name,
      `You allowed ${decided.clientName}`,
      `${decided.clientName} can now use the preferences you chose. It gets its access from us directly, so there is nothing more to do here: you may close this page.`,
      more,
    );
  }
  if (decided?.outcome === 'refused') {
    return messagePage(
      name,
      `You said no to ${decided.clientName}`,
      `Nothing was shared with ${decided.clientName}. There is nothing more to do here: you may close this page.`,
      more,
    );
  }
  return messagePage(
    name,
    'Nothing more to do here',
    'If you have just answered an app that asked to use your preferences, your answer is saved. You may close this page.',
    more,
  );
}

const FIELD_WORDS: Record<string, string> = {
  purposes: 'What for',
  allowed_domains: 'In which areas of life',
  allowed_namespaces: 'Which preferences',
  allowed_claim_keys: 'Which preferences',
  allowed_operations: 'What it may do',
};

/** The operation's refusal, with the field named as the page names it. */
export function friendly(failure: PpxFailure): string {
  const m = /^(\w+): (.*)$/.exec(failure.description);
  const words = m ? FIELD_WORDS[m[1]!] : undefined;
  return words ? `${words}: ${m![2]}` : capitalize(failure.description);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export async function pageContext(web: WebContext, session: WebSession): Promise<PageContext> {
  const username = await signedInName(web.deps, session.record);
  return {
    csrf: session.csrf,
    username,
    providerName: providerName(web),
    now: web.deps.clock(),
  };
}
