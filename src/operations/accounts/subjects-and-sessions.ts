import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { hashPassword, verifyPassword } from '../../auth/passwords.ts';
import { randomToken, sha256 } from '../../auth/secrets.ts';
import type { SessionRecord, SubjectRecord } from '../../model/account.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { newId } from '../../model/ids.ts';
import { parseInput } from '../../model/validate.ts';
import { IdConflictError } from '../../store/store.ts';
import { announceClaims } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

/** How long a browser session lasts. */
export const SESSION_TTL_SECONDS = 8 * 3600;

export const SubjectInput = z.strictObject({
  username: z
    .string()
    .regex(/^[A-Za-z0-9._-]{3,64}$/, 'usernames are 3–64 letters, digits, dots, dashes or underscores'),
  password: z.string().min(10, 'passwords have at least 10 characters').max(200),
  /** Defaults to a fresh `ppx:subject:…` id. */
  subject_id: z.string().min(1).max(300).optional(),
});

/**
 * Creates a subject who can sign in, with an empty profile when they have none yet: the account
 * and the profile commit together.
 */
export async function createSubject(
  deps: Deps,
  raw: z.input<typeof SubjectInput>,
): Promise<Result<SubjectRecord>> {
  const parsed = parseInput(SubjectInput, raw, 'the account');
  if (!parsed.ok) return parsed;
  const input = parsed.value;
  const now = deps.clock().toISOString();
  const record: SubjectRecord = {
    subject_id: input.subject_id ?? `ppx:subject:${randomToken(12)}`,
    username: input.username.toLowerCase(),
    password_hash: await hashPassword(input.password),
    created_at: now,
  };
  return insertSubjectWithProfile(deps, record);
}

/**
 * Stores a subject record with an empty profile when they have none yet, in one transaction. An
 * account without a password (a passkey account, docs/passkeys.md) has an empty `password_hash`,
 * which no password ever verifies against.
 */
export async function insertSubjectWithProfile(
  deps: Deps,
  record: SubjectRecord,
): Promise<Result<SubjectRecord>> {
  const clock = deps.clock();
  const now = record.created_at;
  try {
    await inTransaction(deps, async (tx) => {
      await tx.store.insertSubject(record);
      if (await tx.store.getProfileBySubject(record.subject_id)) return;
      await tx.store.insertProfile({
        profile_id: newId('profile'),
        subject_id: record.subject_id,
        created_at: now,
        updated_at: now,
        default_policy: { cross_domain_transfer: 'deny', inference_writeback: 'review_required' },
      });
      await announceClaims(tx, record.subject_id, 'profile_created', {}, clock);
    });
  } catch (e) {
    if (e instanceof IdConflictError) return fail('conflict', 'that username or subject id is already taken');
    throw e;
  }
  return ok(record);
}

export interface NewSession {
  /** The cookie value: returned once, stored only as its hash. */
  readonly secret: string;
  readonly session: SessionRecord;
}

// A fixed hash to verify against when the username is unknown, so a wrong username takes as
// long as a wrong password and sign-in does not reveal which accounts exist.
let decoy: Promise<string> | undefined;

/** Password sign-in. Every failure is the same `access_denied`, whichever part was wrong. */
export async function signIn(deps: Deps, username: string, password: string): Promise<Result<NewSession>> {
  const subject = await deps.store.getSubjectByUsername(username.toLowerCase());
  decoy ??= hashPassword(randomToken());
  const valid = await verifyPassword(password, subject?.password_hash ?? (await decoy));
  if (!subject || !valid) return fail('access_denied', 'the username or password is wrong');
  if ((await deps.store.getSetting(passwordOffSetting(subject.subject_id))) !== undefined) {
    return fail('access_denied', 'password sign-in is turned off for this account: sign in with a passkey');
  }
  return ok(await openSession(deps, subject.subject_id));
}

/** The setting present while a person has turned password sign-in off (docs/passkeys.md). */
export function passwordOffSetting(subjectId: string): string {
  return `password_off:${subjectId}`;
}

/**
 * Opens a session for a subject another step has already verified; a replacement sign-in
 * method (an operator's SSO, say) ends here too.
 */
export async function openSession(deps: Deps, subjectId: string): Promise<NewSession> {
  const now = deps.clock();
  const secret = randomToken();
  const session: SessionRecord = {
    session_hash: sha256(secret),
    subject_id: subjectId,
    csrf_token: sha256(csrfTokenOf(secret)),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000).toISOString(),
  };
  await inTransaction(deps, (tx) => tx.store.insertSession(session));
  return { secret, session };
}

/**
 * The session's anti-CSRF token (the synchronizer token every form and the web app send back),
 * derived from the session secret: the server makes it again from the cookie on each request,
 * and the store keeps only its hash, so a copy of the database holds no token to forge a form
 * with (nor, the secret being hashed too, a session to use it on).
 */
export function csrfTokenOf(secret: string): string {
  return createHmac('sha256', secret).update('ppx session csrf token').digest('base64url');
}

/** The live session behind a cookie value, or undefined (missing, unknown or expired). */
export async function sessionFrom(
  deps: Deps,
  secret: string | undefined,
): Promise<SessionRecord | undefined> {
  if (secret === undefined || secret.length > 200) return undefined;
  const session = await deps.store.getSession(sha256(secret));
  if (!session || Date.parse(session.expires_at) <= deps.clock().getTime()) return undefined;
  return session;
}

/** The name a signed-in person is shown as: their account's username, or words when it is gone. */
export async function signedInName(deps: Deps, session: SessionRecord): Promise<string> {
  const subject = await deps.store.getSubject(session.subject_id);
  return subject?.username ?? 'your account';
}

export async function signOut(deps: Deps, secret: string): Promise<void> {
  await inTransaction(deps, (tx) => tx.store.deleteSession(sha256(secret)));
}
