import type { Context } from 'hono';
import type { PpxFailure } from '../../model/errors.ts';
import type { GrantRequestDraft, GrantRequestRecord } from '../../model/grant-request.ts';
import type { Caller } from '../../operations/callers/caller.ts';
import { needsFreshSignIn } from '../../operations/consent/fresh-approval.ts';
import { decidePackage, type PackageDecisionInput } from '../../operations/consent/package-decision.ts';
import { type ConsentView, exposureOf, previewNarrowing } from '../../operations/consent/preview.ts';
import type { WebSession } from '../shared/session.ts';
import { type ConfirmStep, confirmStepFor, passwordProblem } from './confirm-block.ts';
import {
  consentPath,
  deadEnd,
  formTargets,
  friendly,
  leaveTo,
  pageContext,
  UNREGISTERED_REDIRECT,
} from './consent-respond.ts';
import { narrowingOf, type Selection, selectionAsAsked, selectionFromForm } from './decision.ts';
import { elementPrefix, elementTitle, type PackageElement, packagePage } from './package-page.ts';
import { seeOther, send, type WebContext } from './respond.ts';
import { type Form, field } from './session.ts';

// The package page's form → decidePackage: one decision per element, built from the fields of
// that element's prefix. Whether a narrowing is allowed, and whether the package may still be
// decided, is the operation's call; the page only refuses forms it could not have produced
// (a missing choice, another request's id) before anything is decided.

interface ElementState {
  readonly request: GrantRequestRecord;
  readonly selection: Selection;
  readonly choice: string | undefined;
  /** Set after a preview: the element as the subject narrowed it. */
  readonly draft?: GrantRequestDraft;
}

type Decision = PackageDecisionInput['decisions'][number];

/** The package as asked, every element pre-set to "Allow this grant". */
export function showPackage(c: Context, web: WebContext, session: WebSession, view: ConsentView) {
  const elements = (view.members ?? []).map((m) => ({
    request: m,
    selection: selectionAsAsked(m.draft),
    choice: 'approve',
  }));
  return renderPackage(c, web, session, view, { elements });
}

/** POST /consent/:id/decision for a request that is one element of a package. */
export async function decidePackageForm(
  c: Context,
  web: WebContext,
  session: WebSession,
  view: ConsentView,
  form: Form,
): Promise<Response> {
  const members = view.members ?? [];
  const elements: ElementState[] = members.map((m) => ({
    request: m,
    selection: selectionFromForm(form, elementPrefix(m)),
    choice: field(form, `${elementPrefix(m)}choice`),
  }));
  const again = (error: string) => renderPackage(c, web, session, view, { elements, error }, 400);
  const decision = field(form, 'decision');
  if (decision !== 'decide' && decision !== 'preview') return again('Choose Confirm or Update.');
  if (members.some((m) => field(form, `${elementPrefix(m)}request`) !== m.grant_request_id)) {
    return again(
      'This form does not match the request, so nothing was decided. Check your choices and confirm again.',
    );
  }

  const now = web.deps.clock();
  const decisions: Decision[] = [];
  for (const e of elements) {
    const title = elementTitle(e.request, members.length);
    const id = e.request.grant_request_id;
    if (e.choice === 'reject') {
      decisions.push({ grant_request_id: id, decision: 'reject' });
      continue;
    }
    if (e.choice !== 'approve') return again(`${title}: choose “Allow this grant” or “Don't allow”.`);
    const narrowing = narrowingOf(e.request.draft, e.selection, now);
    if (!narrowing.ok) return again(`${title}: ${narrowing.error}`);
    decisions.push({ grant_request_id: id, decision: 'approve', narrow: narrowing.narrow });
  }

  if (decision === 'preview') {
    const previewed: ElementState[] = [];
    for (const [i, e] of elements.entries()) {
      const narrow = decisions[i]?.narrow;
      if (narrow === undefined) {
        previewed.push(e);
        continue;
      }
      const narrowed = previewNarrowing(e.request.draft, narrow, now);
      if (!narrowed.ok)
        return again(`${elementTitle(e.request, members.length)}: ${friendly(narrowed.error)}`);
      previewed.push({ ...e, draft: narrowed.value });
    }
    return renderPackage(c, web, session, view, { elements: previewed, previewed: true });
  }

  if (!view.redirectVerified && decisions.some((d) => d.decision === 'approve'))
    return again(UNREGISTERED_REDIRECT);
  const caller: Caller = {
    kind: 'subject',
    subjectId: session.record.subject_id,
    session: session.record.session_hash,
  };
  const packageId = view.request.package?.package_id ?? '';
  const back = consentPath(view.request.grant_request_id);
  const wrong = await passwordProblem(c, web, session, form);
  if (wrong !== undefined) {
    const confirm = await confirmStepFor(web, session, back);
    return renderPackage(c, web, session, view, { elements, error: wrong, confirm }, 400);
  }
  const r = await decidePackage(web.deps, caller, { package_id: packageId, decisions });
  if (r.ok) return seeOther(c, leaveTo(web, view, r.value.redirect_to));
  if (needsFreshSignIn(r.error)) {
    const confirm = await confirmStepFor(web, session, back);
    return renderPackage(c, web, session, view, { elements, error: friendly(r.error), confirm }, 403);
  }
  if (r.error.code === 'invalid_request') return again(packageFriendly(r.error, members));
  return deadEnd(c, web, r.error, session);
}

async function renderPackage(
  c: Context,
  web: WebContext,
  session: WebSession,
  view: ConsentView,
  state: {
    elements: readonly ElementState[];
    previewed?: boolean;
    error?: string;
    confirm?: ConfirmStep;
  },
  status: 200 | 400 | 403 = 200,
): Promise<Response> {
  const elements: PackageElement[] = [];
  for (const e of state.elements) {
    const exposure = await exposureOf(web.deps, e.request, e.draft ?? e.request.draft);
    if (!exposure.ok) throw new Error(`consent preview failed: ${exposure.error.description}`);
    elements.push({ ...e, exposure: exposure.value, previewed: e.draft !== undefined });
  }
  const body = packagePage({
    ...(await pageContext(web, session)),
    view,
    elements,
    previewed: state.previewed === true,
    error: state.error,
    confirm: state.confirm,
  });
  return send(c, body, status, formTargets(view.request.redirect_uri));
}

/** decidePackage names an element by its detail_id; the page names it by its position. */
function packageFriendly(failure: PpxFailure, members: readonly GrantRequestRecord[]): string {
  const m = members.find((x) => x.package && failure.description.startsWith(`${x.package.detail_id}: `));
  if (!m?.package) return friendly(failure);
  const description = failure.description.slice(m.package.detail_id.length + 2);
  return `${elementTitle(m, members.length)}: ${friendly({ ...failure, description })}`;
}
