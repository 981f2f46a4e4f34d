import { fail, ok, type Result } from '../../model/errors.ts';
import type { ProfileRecord } from '../../model/profile-record.ts';
import type { Caller } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';

/** A subject's own profile, or not_found: a subject may exist before any claim was stored. */
export async function subjectProfile(deps: Deps, subjectId: string): Promise<Result<ProfileRecord>> {
  const profile = await deps.store.getProfileBySubject(subjectId);
  return profile ? ok(profile) : fail('not_found', 'there is no profile for this subject yet');
}

/**
 * The caller's own profile, for the owner-only operations (history, diff, deletion, sensitive
 * keys): a grant token is `access_denied`, with `refusal` saying what it may not do.
 */
export async function ownProfile(
  deps: Deps,
  caller: Caller,
  refusal: string,
): Promise<Result<ProfileRecord>> {
  if (caller.kind !== 'subject') return fail('access_denied', refusal);
  return subjectProfile(deps, caller.subjectId);
}
