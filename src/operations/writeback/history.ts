import { z } from 'zod';
import { Claim } from '../../model/claim.ts';
import type { ClaimHistoryEntry, ClaimHistoryInput } from '../../model/claim-history.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { DateTime } from '../../model/vocabulary.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import type { Caller } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';
import { ownProfile } from '../reads/subject-profile.ts';
import { type ProfileDiff, profileDiff } from './diff.ts';

export const HistoryQuery = z.strictObject({
  claim_id: z.string().min(1).max(300).optional(),
  since: DateTime.optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
export type HistoryQuery = z.infer<typeof HistoryQuery>;

export const DiffQuery = z.strictObject({ from: DateTime, to: DateTime.optional() });
export type DiffQuery = z.infer<typeof DiffQuery>;

const Actor = z.strictObject({ kind: z.enum(['subject', 'grantee', 'operator']), id: z.string() });
const HistoryEntry = z.strictObject({
  seq: z.int(),
  claim_id: z.string(),
  profile_id: z.string(),
  at: DateTime,
  claim: Claim.nullable(),
  change: z.enum(['created', 'updated', 'confirmed', 'edited', 'deleted', 'applied_proposal', 'imported']),
  actor: Actor,
  grant_id: z.string().optional(),
  proposal_id: z.string().optional(),
});
export const HistoryPage = z.strictObject({
  profile_id: z.string(),
  entries: z.array(HistoryEntry),
  next_cursor: z.string().optional(),
});
const Change = z.strictObject({ claim_id: z.string(), before: Claim.nullable(), after: Claim.nullable() });
export const DiffResponse = z.strictObject({
  profile_id: z.string(),
  from: DateTime,
  to: DateTime,
  added: z.array(Change),
  changed: z.array(Change),
  removed: z.array(Change),
});

/** The history and diff are for the subject's review UI only. */
const NOT_OWNER = "the claim history is the subject's; a grant token cannot read it";

const BAD_CURSOR = 'cursor must be a next_cursor value from an earlier page';

/** GET /v1/profile/history: every change to the subject's claims, oldest first, paginated. */
export async function listClaimHistory(
  deps: Deps,
  caller: Caller,
  query: HistoryQuery,
): Promise<Result<z.infer<typeof HistoryPage>>> {
  const profile = await ownProfile(deps, caller, NOT_OWNER);
  if (!profile.ok) return profile;
  if (query.cursor !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(query.cursor)) {
    return fail('invalid_request', BAD_CURSOR);
  }
  let page: { entries: ClaimHistoryEntry[]; next_cursor?: string };
  try {
    page = await deps.store.listClaimHistory({
      profile_id: profile.value.profile_id,
      ...(query.claim_id !== undefined ? { claim_id: query.claim_id } : {}),
      ...(query.since !== undefined ? { since: query.since } : {}),
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      limit: query.limit ?? 100,
    });
  } catch (e) {
    if (e instanceof RangeError) return fail('invalid_request', BAD_CURSOR);
    throw e;
  }
  await recordCallerAudit(
    deps,
    caller,
    profile.value.subject_id,
    { action: 'read', detail: 'claim history' },
    deps.clock(),
  );
  return ok({ profile_id: profile.value.profile_id, ...page });
}

/** GET /v1/profile/diff: the claims added, changed and removed between `from` and `to` (default now). */
export async function diffProfile(
  deps: Deps,
  caller: Caller,
  query: DiffQuery,
): Promise<Result<z.infer<typeof DiffResponse>>> {
  const profile = await ownProfile(deps, caller, NOT_OWNER);
  if (!profile.ok) return profile;
  const now = deps.clock();
  const fromMs = Date.parse(query.from);
  const toMs = query.to === undefined ? now.getTime() : Date.parse(query.to);
  if (fromMs > toMs) return fail('invalid_request', '`from` must not be after `to`');
  const entries: ClaimHistoryInput[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.store.listClaimHistory({
      profile_id: profile.value.profile_id,
      until: new Date(toMs + 1).toISOString(),
      ...(cursor !== undefined ? { cursor } : {}),
      limit: 500,
    });
    entries.push(...page.entries);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  const diff: ProfileDiff = profileDiff(entries, fromMs, toMs);
  await recordCallerAudit(
    deps,
    caller,
    profile.value.subject_id,
    { action: 'read', detail: 'profile diff' },
    now,
  );
  return ok({
    profile_id: profile.value.profile_id,
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    ...diff,
  });
}
