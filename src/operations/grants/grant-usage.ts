import { z } from 'zod';
import { fail, ok, type Result } from '../../model/errors.ts';
import { DateTime } from '../../model/vocabulary.ts';
import type { Caller } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';

// When each app last used the access a person gave it (issue 26 item 1: access cards say "last
// used"). Read from the audit log: the newest event under the grant whose actor is the grant's
// own app and whose outcome was ok. A refused call is not a use. Only the person asks;
// reading it is not itself logged (as listing the log is not).

const GrantUsage = z.strictObject({
  grant_id: z.string(),
  /** When the app last used this grant; null when it has not (or not within the pages looked at). */
  last_used_at: DateTime.nullable(),
});
type GrantUsage = z.infer<typeof GrantUsage>;

export const GrantUsageList = z.strictObject({ usage: z.array(GrantUsage) });

/** Pages of the log looked at per grant before saying "not used": a bound on one listing's cost. */
const PAGES_PER_GRANT = 3;
const PAGE_SIZE = 50;

export async function listGrantUsage(
  deps: Deps,
  caller: Caller,
): Promise<Result<z.infer<typeof GrantUsageList>>> {
  if (caller.kind !== 'subject') {
    return fail('access_denied', 'only the person sees when their apps last used their access');
  }
  const grants = await deps.store.listGrantsBySubject(caller.subjectId);
  const usage: GrantUsage[] = [];
  for (const grant of grants) {
    if (grant.status !== 'active') continue;
    usage.push({ grant_id: grant.grant_id, last_used_at: await lastUse(deps, caller.subjectId, grant) });
  }
  return ok({ usage });
}

async function lastUse(
  deps: Deps,
  subjectId: string,
  grant: { readonly grant_id: string; readonly grantee_id: string },
): Promise<string | null> {
  let cursor: string | undefined;
  for (let page = 0; page < PAGES_PER_GRANT; page++) {
    const found = await deps.store.listAudit({
      subject_id: subjectId,
      grant_id: grant.grant_id,
      actor_id: grant.grantee_id,
      order: 'newest',
      limit: PAGE_SIZE,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    const used = found.events.find((e) => e.outcome === 'ok');
    if (used) return used.at;
    if (found.next_cursor === undefined) return null;
    cursor = found.next_cursor;
  }
  return null;
}
