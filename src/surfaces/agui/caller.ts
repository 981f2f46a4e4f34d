import type { Context } from 'hono';
import { fail, ok, type PpxFailure, type Result } from '../../model/errors.ts';
import type { Caller } from '../../operations/callers/caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { type CookiePlan, crossSiteProblem, currentSession, sameToken } from '../shared/session.ts';
import type { StreamCredential } from '../shared/stream-credential.ts';

// Who opens a inbox run: a bearer token the front door authenticated (an app of the person's, a
// script), or, when none was sent, the person's signed-in browser session (the web app at /app). A cookie is sent by the browser on
// its own, so a run on the session passes the checks every state-changing web form passes: the
// request must come from this provider's origin, and carry the session's CSRF token (the
// synchronizer token the pages embed) in a header another site cannot set without CORS.

/** The header a run on the browser session carries the session's CSRF token in. */
const CSRF_HEADER = 'x-csrf-token';

export type CallerOutcome =
  | {
      readonly ok: true;
      readonly caller: Caller;
      /** What the run was opened with, checked again before each event (stream-credential.ts). */
      readonly credential: StreamCredential;
    }
  | { readonly ok: false; readonly error: PpxFailure; readonly tokenPresented?: boolean };

export async function inboxCaller(
  c: Context,
  deps: Deps,
  plan: CookiePlan,
  entered: { readonly caller: Caller | undefined; readonly token: string | undefined },
): Promise<CallerOutcome> {
  // A bearer token, when sent, decided alone at the door: a bad token never falls back to a cookie.
  if (entered.caller !== undefined && entered.token !== undefined) {
    return { ok: true, caller: entered.caller, credential: { kind: 'bearer', token: entered.token } };
  }
  const session = await currentSession(c, deps, plan);
  if (session === undefined) {
    const none = fail('invalid_token', 'an access token or a signed-in session is required').error;
    return { ok: false, error: none, tokenPresented: false };
  }
  const checked = sessionChecks(c, plan, session.csrf);
  if (!checked.ok) return { ok: false, error: checked.error };
  return {
    ok: true,
    caller: { kind: 'subject', subjectId: session.record.subject_id, session: session.record.session_hash },
    credential: { kind: 'session', secret: session.secret },
  };
}

function sessionChecks(c: Context, plan: CookiePlan, csrf: string): Result<true> {
  const problem = crossSiteProblem(c, plan, 'This request');
  if (problem !== undefined) return fail('access_denied', problem);
  if (!sameToken(c.req.header(CSRF_HEADER), csrf)) {
    return fail(
      'access_denied',
      `a run on your signed-in session carries the session's CSRF token in the ${CSRF_HEADER} header`,
    );
  }
  return ok(true);
}
