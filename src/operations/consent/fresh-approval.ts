import { namespaceOfKey, normalizeKey } from '../../model/claim.ts';
import { fail, ok, type PpxFailure, type Result } from '../../model/errors.ts';
import type { ExtensionDescriptor } from '../../model/extension-descriptor.ts';
import { extensionFor } from '../../model/extensions/index.ts';
import type { GrantRequestDraft } from '../../model/grant-request.ts';
import { signedInFreshly } from '../accounts/fresh-sign-in.ts';
import type { Caller } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';
import { sensitiveKeys } from '../writeback/sensitive-keys.ts';

// A fresh sign-in before approving access to sensitive preferences (docs/passkeys.md): a grant
// that covers a namespace whose extension declares `privacy_guidance.high_impact`, or a key the
// person marked sensitive, is approved only by a browser session that proved who it is (a
// user-verified passkey, or the password of an account without one) in the last five minutes.
// The rule is about sessions: a signed-in page can be left open on a shared screen, and a
// session is long-lived. A subject token (the HTTP API) is not a session: it is a short-lived
// credential minted for the person (`ppx mint`, the token endpoints), and approves as before.

/** What the refusal says (the page offers the step beside it). */
const CONFIRM = 'Confirm it is you: sign in again with your passkey or password';

/** Whether a refusal is this one: the page then offers the step instead of a dead end. */
export function needsFreshSignIn(error: PpxFailure): boolean {
  return error.details?.['fresh_sign_in'] === 'required';
}

/**
 * The sensitive parts a grant of `draft` would cover: namespaces declared high-impact, and the
 * person's own sensitive keys in its namespaces (all of a namespace's keys, unless it names some).
 */
export function sensitivePartsOf(
  draft: Pick<GrantRequestDraft, 'allowed_namespaces' | 'allowed_claim_keys'>,
  personal: ReadonlySet<string>,
  extension: (namespace: string) => ExtensionDescriptor | undefined = extensionFor,
): string[] {
  const namespaces = new Set(draft.allowed_namespaces);
  const named = draft.allowed_claim_keys ? new Set(draft.allowed_claim_keys.map(normalizeKey)) : undefined;
  const parts = [...namespaces].filter((ns) => extension(ns)?.privacy_guidance?.high_impact === true);
  for (const key of personal) {
    const k = normalizeKey(key);
    if (namespaces.has(namespaceOfKey(k)) && (named === undefined || named.has(k))) parts.push(k);
  }
  return parts;
}

/** Refuses an approval of `drafts` that covers something sensitive, unless the caller signed in freshly. */
export async function freshSignInFor(
  deps: Deps,
  caller: Caller,
  drafts: readonly Pick<GrantRequestDraft, 'allowed_namespaces' | 'allowed_claim_keys'>[],
): Promise<Result<true>> {
  if (caller.kind !== 'subject' || caller.session === undefined || drafts.length === 0) return ok(true);
  const profile = await deps.store.getProfileBySubject(caller.subjectId);
  const personal = profile ? await sensitiveKeys(deps.store, profile.profile_id) : new Set<string>();
  const parts = [...new Set(drafts.flatMap((d) => sensitivePartsOf(d, personal)))];
  if (parts.length === 0) return ok(true);
  if (caller.session === undefined || (await signedInFreshly(deps, caller.session))) return ok(true);
  return fail('access_denied', `${CONFIRM}, because this access includes sensitive preferences`, {
    details: { fresh_sign_in: 'required', sensitive: parts },
  });
}
