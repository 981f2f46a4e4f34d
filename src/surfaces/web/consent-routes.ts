import type { Context, Hono } from 'hono';
import type { PpxFailure } from '../../model/errors.ts';
import type { Caller } from '../../operations/caller.ts';
import { approveGrantRequest, rejectGrantRequest } from '../../operations/consent/decide.ts';
import { narrowDraft } from '../../policy/narrowing.ts';
import type { GrantRequestDraft } from '../../store/store.ts';
import { consentPage } from './consent-page.ts';
import { type ConsentView, exposureOf, loadConsentView } from './consent-view.ts';
import { narrowingOf, type Selection, selectionAsAsked, selectionFromForm } from './decision.ts';
import { html } from './escape.ts';
import { providerName, seeOther, send, type WebContext } from './respond.ts';
import { crossSiteProblem, currentSession, field, readForm, sameToken, type WebSession } from './session.ts';
import { messagePage, signOutForm } from './signin.ts';
import { refused, showSignIn } from './signin-routes.ts';

const SIGN_IN_REASON =
  'An app is asking to use your preferences. Sign in to see exactly what it asks for, and decide.';

export function registerConsentRoutes(app: Hono, web: WebContext): void {
  app.get('/consent/:id', async (c) => {
    const id = c.req.param('id');
    const session = await currentSession(c, web.deps, web.plan);
    // Without a session nothing about the request is shown, not even whether it exists.
    if (!session) return showSignIn(c, web, { returnTo: consentPath(id), reason: SIGN_IN_REASON });
    const view = await loadConsentView(web.deps, session.record.subject_id, id);
    if (!view.ok) return deadEnd(c, web, view.error, session);
    return render(c, web, session, view.value, { selection: selectionAsAsked(view.value.request.draft) });
  });

  app.post('/consent/:id/decision', async (c) => {
    const id = c.req.param('id');
    const problem = crossSiteProblem(c, web.plan);
    if (problem) return refused(c, web, problem);
    const session = await currentSession(c, web.deps, web.plan);
    if (!session) {
      return showSignIn(
        c,
        web,
        { returnTo: consentPath(id), error: 'You are not signed in any more. Sign in, then decide again.' },
        401,
      );
    }
    const form = await readForm(c);
    if (!sameToken(field(form, 'csrf'), session.record.csrf_token)) {
      return refused(c, web, 'This form could not be verified. Reload the consent page and try again.');
    }
    const view = await loadConsentView(web.deps, session.record.subject_id, id);
    if (!view.ok) return deadEnd(c, web, view.error, session);
    const caller: Caller = { kind: 'subject', subjectId: session.record.subject_id };
    const decision = field(form, 'decision');

    if (decision === 'reject') {
      const r = await rejectGrantRequest(web.deps, caller, { grant_request_id: id });
      return r.ok ? seeOther(c, r.value.redirect_to) : deadEnd(c, web, r.error, session);
    }
    const draft = view.value.request.draft;
    const selection = selectionFromForm(form);
    const now = web.deps.clock();
    const narrowing = narrowingOf(draft, selection, now);
    if (!narrowing.ok) return render(c, web, session, view.value, { selection, error: narrowing.error }, 400);

    if (decision === 'preview') {
      const narrowed = narrowDraft(draft, narrowing.narrow, now);
      if (!narrowed.ok) {
        return render(c, web, session, view.value, { selection, error: friendly(narrowed.error) }, 400);
      }
      return render(c, web, session, view.value, { selection, draft: narrowed.value, previewed: true });
    }
    if (decision !== 'approve') {
      return render(c, web, session, view.value, { selection, error: 'Choose Allow or Reject.' }, 400);
    }
    const r = await approveGrantRequest(web.deps, caller, { grant_request_id: id, narrow: narrowing.narrow });
    if (r.ok) return seeOther(c, r.value.redirect_to);
    if (r.error.code === 'invalid_request') {
      return render(c, web, session, view.value, { selection, error: friendly(r.error) }, 400);
    }
    return deadEnd(c, web, r.error, session);
  });
}

function consentPath(id: string): string {
  return `/consent/${encodeURIComponent(id)}`;
}

async function render(
  c: Context,
  web: WebContext,
  session: WebSession,
  view: ConsentView,
  state: { selection: Selection; draft?: GrantRequestDraft; previewed?: boolean; error?: string },
  status: 200 | 400 = 200,
): Promise<Response> {
  const exposure = await exposureOf(web.deps, view.request, state.draft ?? view.request.draft);
  if (!exposure.ok) throw new Error(`consent preview failed: ${exposure.error.description}`);
  const subject = await web.deps.store.getSubject(session.record.subject_id);
  const body = consentPage({
    view,
    selection: state.selection,
    exposure: exposure.value,
    previewed: state.previewed === true,
    csrf: session.record.csrf_token,
    username: subject?.username ?? 'your account',
    providerName: providerName(web),
    now: web.deps.clock(),
    error: state.error,
  });
  return send(c, body, status, [formTarget(view.request.redirect_uri)]);
}

/**
 * The decision 303-redirects to the request's redirect URI (checked against the registration
 * when the request was made), and Chromium checks `form-action` against a form's redirects too:
 * without this source the browser would stop after the decision was already recorded. An origin,
 * or the scheme alone for a native app's private-use scheme (whose origin is opaque).
 */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin !== 'null' ? url.origin : url.protocol;
}

/** A request the signed-in subject cannot decide on: another account's (or none), decided, expired. */
function deadEnd(c: Context, web: WebContext, failure: PpxFailure, session: WebSession): Response {
  const name = providerName(web);
  if (failure.code === 'conflict') {
    return send(
      c,
      messagePage(name, 'This request is closed', `${capitalize(failure.description)}. Nothing was changed.`),
      409,
    );
  }
  if (failure.code === 'not_found') {
    return send(
      c,
      messagePage(
        name,
        'This request is for another account',
        'There is no consent request at this address for the account you are signed in with. If it was meant for another account of yours, sign out and sign in with that one.',
        html`<p>${signOutForm(session.record.csrf_token)}</p>`,
      ),
      404,
    );
  }
  return send(c, messagePage(name, 'Request refused', capitalize(failure.description)), 403);
}

const FIELD_WORDS: Record<string, string> = {
  purposes: 'What for',
  allowed_domains: 'In which areas',
  allowed_namespaces: 'Which preferences',
  allowed_claim_keys: 'Which preferences',
  allowed_operations: 'What it may do',
};

/** The operation's refusal, with the field named as the page names it. */
function friendly(failure: PpxFailure): string {
  const m = /^(\w+): (.*)$/.exec(failure.description);
  const words = m ? FIELD_WORDS[m[1]!] : undefined;
  return words ? `${words}: ${m![2]}` : capitalize(failure.description);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
