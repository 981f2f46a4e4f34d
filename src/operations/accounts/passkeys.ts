import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { z } from 'zod';
import { randomToken, sha256 } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { PasskeyRecord, PasskeyTicket } from '../../model/passkey.ts';
import { IdConflictError } from '../../store/store.ts';
import type { Deps, TxDeps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';
import { insertSubjectWithProfile, passwordOffSetting, SubjectInput } from './subjects-and-sessions.ts';

// Passkeys (WebAuthn, docs/passkeys.md): registering one, signing in with one, listing and
// removing them, and turning password sign-in off. The relying party is the provider's configured
// base URL: its host is the RP ID, its origin the only origin accepted. A ceremony's challenge is
// kept in the store as a single-use ticket found by the challenge's hash, bound to the browser
// session or sign-in attempt that asked for it (`binding`, a hash the surface derives from its
// cookie), live five minutes. User verification is required at every step; a signature counter
// that does not move forward is refused (a copied authenticator).

const CHALLENGE_SECONDS = 5 * 60;
/** How long a one-time link to register a first passkey lasts. */
const SETUP_LINK_SECONDS = 24 * 3600;
const MAX_PASSKEYS = 20;
const REFUSED = 'the passkey could not be verified';

/** The binding of a ceremony to the browser that asked: a hash of its pre-session CSRF cookie. */
export function preSessionBinding(cookie: string): string {
  return sha256(`pre-session:${cookie}`);
}

/** Who a registration is for: a signed-in account, a new account, or a one-time link's account. */
export type RegistrationFor =
  | { readonly kind: 'account'; readonly subjectId: string }
  | { readonly kind: 'new_account'; readonly username: string }
  | { readonly kind: 'setup_link'; readonly token: string };

interface ChallengeBody {
  readonly challenge: string;
  readonly binding: string;
  readonly user_id?: string;
  readonly username?: string;
  readonly link_hash?: string;
}

/** The relying party: RP ID and origin from the provider's base URL (docs/passkeys.md). */
function relyingParty(deps: Deps): { rpID: string; origin: string; name: string } {
  const url = new URL(deps.provider.baseUrl);
  return { rpID: url.hostname, origin: url.origin, name: deps.provider.name };
}

function later(deps: Deps, seconds: number): string {
  return new Date(deps.clock().getTime() + seconds * 1000).toISOString();
}

async function putTicket(deps: Deps, ticket: PasskeyTicket): Promise<void> {
  const now = deps.clock().toISOString();
  await inTransaction(deps, async (tx) => {
    await tx.store.prunePasskeyTickets(now, 100);
    await tx.store.putPasskeyTicket(ticket);
  });
}

/** Options for `navigator.credentials.create`, and the challenge kept for the answer. */
export async function registrationOptions(
  deps: Deps,
  who: RegistrationFor,
  binding: string,
): Promise<Result<PublicKeyCredentialCreationOptionsJSON>> {
  const rp = relyingParty(deps);
  let subjectId: string | undefined;
  let username: string;
  const extra: { username?: string; link_hash?: string } = {};
  if (who.kind === 'new_account') {
    const parsed = SubjectInput.shape.username.safeParse(who.username);
    if (!parsed.success)
      return fail('invalid_request', parsed.error.issues[0]?.message ?? 'invalid username');
    username = parsed.data.toLowerCase();
    if (await deps.store.getSubjectByUsername(username)) {
      return fail('conflict', 'that username is already taken');
    }
    extra.username = username;
  } else {
    if (who.kind === 'setup_link') {
      const link = await liveLink(deps, who.token);
      if (!link) return fail('access_denied', 'this link has expired or was already used');
      subjectId = link;
      extra.link_hash = sha256(who.token);
    } else subjectId = who.subjectId;
    const subject = await deps.store.getSubject(subjectId);
    if (!subject) return fail('not_found', 'no such account');
    username = subject.username;
  }
  const existing = subjectId ? await deps.store.listPasskeys(subjectId) : [];
  if (existing.length >= MAX_PASSKEYS)
    return fail('conflict', `an account holds at most ${MAX_PASSKEYS} passkeys`);
  const userId = subjectId ?? `new:${randomToken(12)}`;
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.rpID,
    userName: username,
    userID: new TextEncoder().encode(userId),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: [...p.transports] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    timeout: CHALLENGE_SECONDS * 1000,
  });
  const body: ChallengeBody = { challenge: options.challenge, binding, user_id: userId, ...extra };
  await putTicket(deps, {
    ticket_hash: sha256(options.challenge),
    kind: 'registration',
    ...(subjectId ? { subject_id: subjectId } : {}),
    body: JSON.stringify(body),
    expires_at: later(deps, CHALLENGE_SECONDS),
  });
  return ok(options);
}

/** The challenge a browser's answer signed, read from its client data; undefined when unreadable. */
function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | undefined {
  const data = response.response?.clientDataJSON;
  if (typeof data !== 'string' || data.length > 4096) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed.challenge === 'string' ? parsed.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** Takes (single use) the ticket a browser's answer belongs to, when the same browser asked for it. */
async function takeChallenge(
  deps: Deps,
  kind: 'registration' | 'authentication',
  response: { response?: { clientDataJSON?: unknown } },
  binding: string,
): Promise<{ ticket: PasskeyTicket; body: ChallengeBody } | undefined> {
  const challenge = challengeOf(response);
  if (challenge === undefined) return undefined;
  const now = deps.clock().toISOString();
  const ticket = await inTransaction(deps, (tx) => tx.store.takePasskeyTicket(sha256(challenge), kind, now));
  if (!ticket) return undefined;
  const body = JSON.parse(ticket.body) as ChallengeBody;
  if (body.binding !== binding || body.challenge !== challenge) return undefined;
  return { ticket, body };
}

const CredentialJson = z.looseObject({
  id: z.string().min(1).max(1400),
  rawId: z.string().min(1).max(1400),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().max(4096) }),
});

/** A browser's answer as JSON text (a form field), or undefined when it is not one. */
export function credentialFrom(text: string | undefined): z.infer<typeof CredentialJson> | undefined {
  if (text === undefined || text.length > 64 * 1024) return undefined;
  try {
    const parsed = CredentialJson.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies a registration answer and stores the passkey; for a new account, creates the account
 * (no password) first; for a one-time link, uses the link up. Returns the account's subject id.
 */
export async function verifyRegistration(
  deps: Deps,
  input: { response: unknown; binding: string; name?: string | undefined },
): Promise<Result<{ subjectId: string; passkey: PasskeyRecord }>> {
  const response = input.response as RegistrationResponseJSON;
  const taken = await takeChallenge(deps, 'registration', response, input.binding);
  if (!taken) return fail('access_denied', `${REFUSED}: the request expired or was already used; try again`);
  const rp = relyingParty(deps);
  let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    info = await verifyRegistrationResponse({
      response,
      expectedChallenge: taken.body.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: true,
    });
  } catch {
    return fail('access_denied', REFUSED);
  }
  if (!info.verified) return fail('access_denied', REFUSED);
  const now = deps.clock().toISOString();
  const cred = info.registrationInfo.credential;
  const name = (input.name ?? '').trim().slice(0, 60) || 'Passkey';
  let subjectId = taken.ticket.subject_id;
  if (taken.body.username !== undefined) {
    const created = await insertSubjectWithProfile(deps, {
      subject_id: `ppx:subject:${randomToken(12)}`,
      username: taken.body.username,
      password_hash: '',
      created_at: now,
    });
    if (!created.ok) return fail('conflict', 'that username was taken meanwhile; choose another one');
    subjectId = created.value.subject_id;
  }
  if (subjectId === undefined) return fail('access_denied', REFUSED);
  const passkey: PasskeyRecord = {
    credential_id: cred.id,
    subject_id: subjectId,
    public_key: Buffer.from(cred.publicKey).toString('base64url'),
    counter: cred.counter,
    transports: [...(cred.transports ?? [])],
    name,
    created_at: now,
  };
  const linkHash = taken.body.link_hash;
  try {
    const stored = await inTransaction(
      deps,
      async (tx) => {
        if (linkHash !== undefined && !(await tx.store.takePasskeyTicket(linkHash, 'setup_link', now)))
          return false;
        await tx.store.insertPasskey(passkey);
        return true;
      },
      { subject: subjectId },
    );
    if (!stored) return fail('access_denied', 'this link has expired or was already used');
  } catch (e) {
    if (e instanceof IdConflictError) return fail('conflict', 'this passkey is registered already');
    throw e;
  }
  return ok({ subjectId, passkey });
}

/**
 * Options for `navigator.credentials.get`: any passkey of this provider (the browser offers the
 * person's), or only `subjectId`'s when a signed-in person confirms it is them.
 */
export async function authenticationOptions(
  deps: Deps,
  binding: string,
  subjectId?: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const rp = relyingParty(deps);
  const mine = subjectId ? await deps.store.listPasskeys(subjectId) : [];
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    userVerification: 'required',
    timeout: CHALLENGE_SECONDS * 1000,
    allowCredentials: mine.map((p) => ({ id: p.credential_id, transports: [...p.transports] })),
  });
  await putTicket(deps, {
    ticket_hash: sha256(options.challenge),
    kind: 'authentication',
    ...(subjectId ? { subject_id: subjectId } : {}),
    body: JSON.stringify({ challenge: options.challenge, binding } satisfies ChallengeBody),
    expires_at: later(deps, CHALLENGE_SECONDS),
  });
  return options;
}

/**
 * Verifies a sign-in answer: the challenge this browser asked for, this provider's origin and RP
 * ID, user verification, and a counter that moved forward (compare-and-set, so two uses of one
 * counter value cannot both pass). Returns whose passkey it was.
 */
export async function verifyAuthentication(
  deps: Deps,
  input: { response: unknown; binding: string },
): Promise<Result<{ subjectId: string; credentialId: string }>> {
  const response = input.response as AuthenticationResponseJSON;
  const taken = await takeChallenge(deps, 'authentication', response, input.binding);
  if (!taken) return fail('access_denied', `${REFUSED}: the request expired or was already used; try again`);
  const passkey = await deps.store.getPasskey(response.id);
  if (!passkey) return fail('access_denied', `${REFUSED}: this passkey is not registered here`);
  if (taken.ticket.subject_id !== undefined && taken.ticket.subject_id !== passkey.subject_id) {
    return fail('access_denied', REFUSED);
  }
  const rp = relyingParty(deps);
  let info: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    info = await verifyAuthenticationResponse({
      response,
      expectedChallenge: taken.body.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: true,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
    });
  } catch (e) {
    if (e instanceof Error && /counter value/.test(e.message)) {
      return fail(
        'access_denied',
        `${REFUSED}: its use counter went backwards, which happens when a passkey has been copied`,
      );
    }
    return fail('access_denied', REFUSED);
  }
  if (!info.verified || !info.authenticationInfo.userVerified) return fail('access_denied', REFUSED);
  const now = deps.clock().toISOString();
  const moved = await inTransaction(
    deps,
    (tx) =>
      tx.store.usePasskey(passkey.credential_id, passkey.counter, info.authenticationInfo.newCounter, now),
    { subject: passkey.subject_id },
  );
  if (!moved) return fail('access_denied', `${REFUSED}: it was used twice at once; try again`);
  return ok({ subjectId: passkey.subject_id, credentialId: passkey.credential_id });
}

/** A person's passkeys as they are shown (no key material). */
interface PasskeySummary {
  readonly id: string;
  readonly name: string;
  readonly created_at: string;
  readonly last_used_at?: string;
}

export interface SignInMethods {
  readonly passkeys: readonly PasskeySummary[];
  /** Whether the account can sign in with a password (it has one, and it is not turned off). */
  readonly password_sign_in: boolean;
  /** Whether the account has a password at all (an account made with a passkey has none). */
  readonly has_password: boolean;
}

export async function signInMethods(deps: Deps, subjectId: string): Promise<SignInMethods> {
  const [passkeys, subject, off] = await Promise.all([
    deps.store.listPasskeys(subjectId),
    deps.store.getSubject(subjectId),
    deps.store.getSetting(passwordOffSetting(subjectId)),
  ]);
  const hasPassword = (subject?.password_hash ?? '') !== '';
  return {
    passkeys: passkeys.map((p) => ({
      id: p.credential_id,
      name: p.name,
      created_at: p.created_at,
      ...(p.last_used_at ? { last_used_at: p.last_used_at } : {}),
    })),
    password_sign_in: hasPassword && off === undefined,
    has_password: hasPassword,
  };
}

/** Whether a subject can still sign in with something other than `leaving` once it is gone. */
async function otherWayIn(tx: TxDeps, subjectId: string, leaving: string | undefined): Promise<boolean> {
  const subject = await tx.store.getSubject(subjectId);
  const password =
    (subject?.password_hash ?? '') !== '' &&
    (await tx.store.getSetting(passwordOffSetting(subjectId))) === undefined;
  if (password) return true;
  const passkeys = await tx.store.listPasskeys(subjectId);
  return passkeys.some((p) => p.credential_id !== leaving);
}

/** Removes one of the person's passkeys, unless it is their only way to sign in. */
export async function removePasskey(
  deps: Deps,
  subjectId: string,
  credentialId: string,
): Promise<Result<true>> {
  return inTransaction(
    deps,
    async (tx): Promise<Result<true>> => {
      if (!(await otherWayIn(tx, subjectId, credentialId))) {
        return fail(
          'conflict',
          'this is your only way to sign in: add another passkey or turn password sign-in back on first',
        );
      }
      if (!(await tx.store.deletePasskey(subjectId, credentialId)))
        return fail('not_found', 'no such passkey');
      return ok(true);
    },
    { subject: subjectId },
  );
}

/** Turns password sign-in on or off; off only with at least one passkey, on only with a password. */
export async function setPasswordSignIn(
  deps: Deps,
  subjectId: string,
  on: boolean,
): Promise<Result<SignInMethods>> {
  const done = await inTransaction(
    deps,
    async (tx): Promise<Result<true>> => {
      if (on) {
        const subject = await tx.store.getSubject(subjectId);
        if ((subject?.password_hash ?? '') === '') {
          return fail('conflict', 'this account has no password; it signs in with passkeys only');
        }
        await tx.store.deleteSetting(passwordOffSetting(subjectId));
        return ok(true);
      }
      if ((await tx.store.listPasskeys(subjectId)).length === 0) {
        return fail('conflict', 'add a passkey before turning password sign-in off');
      }
      await tx.store.putSetting(passwordOffSetting(subjectId), deps.clock().toISOString());
      return ok(true);
    },
    { subject: subjectId },
  );
  if (!done.ok) return done;
  return ok(await signInMethods(deps, subjectId));
}

/** A one-time link's account while the link is live, else undefined. */
async function liveLink(deps: Deps, token: string): Promise<string | undefined> {
  if (token.length > 200) return undefined;
  const ticket = await deps.store.getPasskeyTicket(sha256(token), 'setup_link', deps.clock().toISOString());
  return ticket?.subject_id;
}

/** Whether a one-time link can still be used (the page that shows it asks). */
export async function setupLinkIsLive(deps: Deps, token: string): Promise<boolean> {
  return (await liveLink(deps, token)) !== undefined;
}

/** Makes a one-time link token for `subjectId` to register a passkey with (single use, 24 h). */
export async function createSetupLink(deps: Deps, subjectId: string): Promise<string> {
  const token = randomToken();
  await putTicket(deps, {
    ticket_hash: sha256(token),
    kind: 'setup_link',
    subject_id: subjectId,
    body: '{}',
    expires_at: later(deps, SETUP_LINK_SECONDS),
  });
  return token;
}
