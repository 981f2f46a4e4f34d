import { fail, ok, type Result } from '../../model/errors.ts';
import type { ProfileRecord } from '../../store/store.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';

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
  const profile = await deps.store.getProfileBySubject(caller.subjectId);
  return profile ? ok(profile) : fail('not_found', 'there is no profile for this subject');
}
