import { verifyPassword } from '../../auth/passwords.ts';
import { sha256 } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';
import { signInMethods } from './passkeys.ts';

// A fresh sign-in (docs/passkeys.md, "Fresh sign-in for sensitive access"): a browser session
// that has just proved who it is, with a user-verified passkey or, for an account without one,
// its password, is marked for five minutes; consent/fresh-approval.ts asks for the mark before a
// session approves access to sensitive preferences. The mark is a ticket of the passkey store.

/** How long a user-verified sign-in counts as fresh for sensitive consent decisions. */
const FRESH_SIGN_IN_SECONDS = 5 * 60;

function later(deps: Deps, seconds: number): string {
  return new Date(deps.clock().getTime() + seconds * 1000).toISOString();
}

/**
 * Notes that the browser session `sessionHash` has just proved who it is with user verification
 * (a passkey, or a password for an account without passkeys): sensitive consent decisions made
 * in the next five minutes accept it (docs/passkeys.md, "Fresh sign-in").
 */
export async function noteFreshSignIn(deps: Deps, sessionHash: string): Promise<void> {
  const hash = sha256(`fresh:${sessionHash}`);
  const now = deps.clock().toISOString();
  await inTransaction(deps, async (tx) => {
    // Whatever the earlier one's expiry (a taker's "now" before every expiry takes any).
    await tx.store.takePasskeyTicket(hash, 'fresh_sign_in', '');
    await tx.store.prunePasskeyTickets(now, 100);
    await tx.store.putPasskeyTicket({
      ticket_hash: hash,
      kind: 'fresh_sign_in',
      body: '{}',
      expires_at: later(deps, FRESH_SIGN_IN_SECONDS),
    });
  });
}

/** Whether the browser session `sessionHash` proved who it is in the last five minutes. */
export async function signedInFreshly(deps: Deps, sessionHash: string): Promise<boolean> {
  const hash = sha256(`fresh:${sessionHash}`);
  return (await deps.store.getPasskeyTicket(hash, 'fresh_sign_in', deps.clock().toISOString())) !== undefined;
}

/**
 * A signed-in person without a passkey confirms it is them by typing their password again; the
 * session then counts as freshly signed in. A person with a passkey confirms with it instead
 * (user verification), and one whose password sign-in is off cannot use a password at all.
 */
export async function confirmWithPassword(
  deps: Deps,
  session: { subject_id: string; session_hash: string },
  password: string,
): Promise<Result<true>> {
  const methods = await signInMethods(deps, session.subject_id);
  if (methods.passkeys.length > 0) {
    return fail('access_denied', 'you have a passkey: confirm it is you with your passkey');
  }
  const subject = await deps.store.getSubject(session.subject_id);
  if (!methods.password_sign_in || !subject || password.length > 200) {
    return fail('access_denied', 'the password is wrong');
  }
  if (!(await verifyPassword(password, subject.password_hash))) {
    return fail('access_denied', 'the password is wrong');
  }
  await noteFreshSignIn(deps, session.session_hash);
  return ok(true);
}

/**
 * After a password sign-in: for an account without a passkey, the password is the strongest
 * proof it has, so the new session counts as freshly signed in (docs/passkeys.md).
 */
export async function notePasswordSignIn(
  deps: Deps,
  session: { subject_id: string; session_hash: string },
): Promise<void> {
  if ((await deps.store.listPasskeys(session.subject_id)).length === 0) {
    await noteFreshSignIn(deps, session.session_hash);
  }
}
