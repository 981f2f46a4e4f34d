import type { Context, Hono } from 'hono';
import type { GrantRequestDraft } from '../../model/grant-request.ts';
import type { Caller } from '../../operations/callers/caller.ts';
import { approveGrantRequest, rejectGrantRequest } from '../../operations/consent/decide.ts';
import { needsFreshSignIn } from '../../operations/consent/fresh-approval.ts';
import {
  type ConsentView,
  decisionOutcomeFor,
  exposureOf,
  loadConsentView,
  previewNarrowing,
} from '../../operations/consent/preview.ts';
import { crossSiteProblem, currentSession, sameToken, type WebSession } from '../shared/session.ts';
import { type ConfirmStep, confirmStepFor, passwordProblem } from './confirm-block.ts';
import { consentPage } from './consent-page.ts';
import {
  closingPage,
  consentPath,
  deadEnd,
  formTargets,
  friendly,
  leaveTo,
  pageContext,
  UNREGISTERED_REDIRECT,
} from './consent-respond.ts';
import { narrowingOf, type Selection, selectionAsAsked, selectionFromForm } from './decision.ts';
import { decidePackageForm, showPackage } from './package-decision.ts';
import { providerName, seeOther, send, type WebContext } from './respond.ts';
import { field, readForm } from './session.ts';
import { refused, showSignIn } from './signin-routes.ts';

export function registerConsentRoutes(app: Hono, web: WebContext): void {
  app.get('/consent/:id', async (c) => {
    const id = c.req.param('id');
    const session = await currentSession(c, web.deps, web.plan);
    // Without a session only the asking app is named (signin-routes.ts#signInReason).
    if (!session) return showSignIn(c, web, { returnTo: consentPath(id) });
    const view = await loadConsentView(web.deps, session.record.subject_id, id);
    if (!view.ok) return deadEnd(c, web, view.error, session);
    if (view.value.members) return showPackage(c, web, session, view.value);
    return render(c, web, session, view.value, { selection: selectionAsAsked(view.value.request.draft) });
  });

  // Where a back-channel request's decision ends (WIRE-NOTES §2.1): the provider's own page.
  app.get('/consent/:id/done', async (c) => {
    const id = c.req.param('id');
    const session = await currentSession(c, web.deps, web.plan);
    const decided = session ? await decisionOutcomeFor(web.deps, session.record.subject_id, id) : undefined;
    if (decided?.outcome === 'pending') return seeOther(c, consentPath(id));
    return send(c, closingPage(providerName(web), decided));
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
    if (!sameToken(field(form, 'csrf'), session.csrf)) {
      return refused(c, web, 'This form could not be verified. Reload the consent page and try again.');
    }
    const view = await loadConsentView(web.deps, session.record.subject_id, id);
    if (!view.ok) return deadEnd(c, web, view.error, session);
    if (view.value.members) return decidePackageForm(c, web, session, view.value, form);
    const caller: Caller = {
      kind: 'subject',
      subjectId: session.record.subject_id,
      session: session.record.session_hash,
    };
    const decision = field(form, 'decision');

    if (decision === 'reject') {
      const r = await rejectGrantRequest(web.deps, caller, { grant_request_id: id });
      return r.ok
        ? seeOther(c, leaveTo(web, view.value, r.value.redirect_to))
        : deadEnd(c, web, r.error, session);
    }
    const draft = view.value.request.draft;
    const selection = selectionFromForm(form);
    const now = web.deps.clock();
    const narrowing = narrowingOf(draft, selection, now);
    if (!narrowing.ok) return render(c, web, session, view.value, { selection, error: narrowing.error }, 400);

    if (decision === 'preview') {
      const narrowed = previewNarrowing(draft, narrowing.narrow, now);
      if (!narrowed.ok) {
        return render(c, web, session, view.value, { selection, error: friendly(narrowed.error) }, 400);
      }
      return render(c, web, session, view.value, { selection, draft: narrowed.value, previewed: true });
    }
    if (decision !== 'approve') {
      return render(c, web, session, view.value, { selection, error: 'Choose Allow or Reject.' }, 400);
    }
    if (!view.value.redirectVerified) {
      return render(c, web, session, view.value, { selection, error: UNREGISTERED_REDIRECT }, 400);
    }
    const wrong = await passwordProblem(c, web, session, form);
    if (wrong !== undefined) {
      const confirm = await confirmStepFor(web, session, consentPath(id));
      return render(c, web, session, view.value, { selection, error: wrong, confirm }, 400);
    }
    const r = await approveGrantRequest(web.deps, caller, { grant_request_id: id, narrow: narrowing.narrow });
    if (r.ok) return seeOther(c, r.value.redirect_to);
    if (needsFreshSignIn(r.error)) {
      const confirm = await confirmStepFor(web, session, consentPath(id));
      return render(c, web, session, view.value, { selection, error: friendly(r.error), confirm }, 403);
    }
    if (r.error.code === 'invalid_request') {
      return render(c, web, session, view.value, { selection, error: friendly(r.error) }, 400);
    }
    return deadEnd(c, web, r.error, session);
  });
}

async function render(
  c: Context,
  web: WebContext,
  session: WebSession,
  view: ConsentView,
  state: {
    selection: Selection;
    draft?: GrantRequestDraft;
    previewed?: boolean;
    error?: string;
    confirm?: ConfirmStep;
  },
  status: 200 | 400 | 403 = 200,
): Promise<Response> {
  const exposure = await exposureOf(web.deps, view.request, state.draft ?? view.request.draft);
  if (!exposure.ok) throw new Error(`consent preview failed: ${exposure.error.description}`);
  const body = consentPage({
    ...(await pageContext(web, session)),
    view,
    selection: state.selection,
    exposure: exposure.value,
    previewed: state.previewed === true,
    error: state.error,
    confirm: state.confirm,
  });
  return send(c, body, status, formTargets(view.request.redirect_uri));
}
