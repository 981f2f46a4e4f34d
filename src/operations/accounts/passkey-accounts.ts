import { randomToken } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { Deps } from '../deps.ts';
import { SERVED_BASE_URL_SETTING } from '../provider/served-base-url.ts';
import { createSetupLink } from './passkeys.ts';
import { insertSubjectWithProfile, SubjectInput } from './subjects-and-sessions.ts';

/**
 * An account with no password (`ppx subject add --no-password`; docs/passkeys.md) and the one-time
 * link at which its person registers a first passkey. The link is on the base URL `ppx serve` last
 * served on (passkeys belong to that host), else the configured one.
 */
export async function createPasskeyAccount(
  deps: Deps,
  input: { username: string; subject_id?: string },
): Promise<Result<{ subject_id: string; username: string; link: string }>> {
  const username = SubjectInput.shape.username.safeParse(input.username);
  if (!username.success)
    return fail('invalid_request', username.error.issues[0]?.message ?? 'invalid username');
  const subject = SubjectInput.shape.subject_id.safeParse(input.subject_id);
  if (!subject.success) return fail('invalid_request', 'invalid subject id');
  const created = await insertSubjectWithProfile(deps, {
    subject_id: subject.data ?? `ppx:subject:${randomToken(12)}`,
    username: username.data.toLowerCase(),
    password_hash: '',
    created_at: deps.clock().toISOString(),
  });
  if (!created.ok) return created;
  const token = await createSetupLink(deps, created.value.subject_id);
  const base = (await deps.store.getSetting(SERVED_BASE_URL_SETTING)) ?? deps.provider.baseUrl;
  const link = new URL(`/passkey-setup/${token}`, base).toString();
  return ok({ subject_id: created.value.subject_id, username: created.value.username, link });
}
