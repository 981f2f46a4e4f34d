import type { ChangeDraft, ChangeEvent, ChangeIds, ChangeKind } from '../model/change-event.ts';
import { fail, ok, type Result } from '../model/errors.ts';
import type { GrantRecord } from '../model/grant-record.ts';
import type { FamilyEndReason } from '../model/token-family.ts';
import { grantStatusAt } from '../policy/grant-status.ts';
import type { ChangeSubscription } from '../store/change-feed.ts';
import type { StoreReader } from '../store/store.ts';
import type { Caller } from './callers/caller.ts';
import { receiptOfEnd } from './consent/receipts.ts';
import type { Deps, TxDeps } from './deps.ts';
import { inTransaction } from './transaction.ts';

// Change events (model/change-event.ts, docs/store.md "Change events"): every write announces
// what it changed inside its own transaction, so the outbox row commits with the change, and a
// caller follows the events of what it may see through `followChanges`.

/**
 * Appends a change event to the transaction's outbox: it commits with the transaction's writes
 * and is delivered after that commit (or never, if the transaction rolls back). Id lists are
 * made unique and empty ones dropped; `grants` is sorted.
 */
export async function announce(
  tx: TxDeps,
  subjectId: string,
  kind: ChangeKind,
  ids: ChangeIds,
  grants: Iterable<string> = [],
): Promise<ChangeEvent> {
  const draft: ChangeDraft = {
    subject_id: subjectId,
    kind,
    ids: compactIds(ids),
    grants: [...new Set(grants)].sort(),
    at: tx.clock().toISOString(),
  };
  return tx.store.appendChange(draft);
}

function compactIds(ids: ChangeIds): ChangeIds {
  const out: Record<string, readonly string[]> = {};
  for (const [name, list] of Object.entries(ids) as [keyof ChangeIds, readonly string[] | undefined][]) {
    if (list !== undefined && list.length > 0) out[name] = [...new Set(list)];
  }
  return out as ChangeIds;
}

/**
 * The grants a change to claims in `namespaces` may matter to: the subject's grants active at
 * `now` whose namespaces include one of them (every active grant when `namespaces` is 'all', as
 * for a deleted or replaced profile). A superset of who may see the change: keys, visibility
 * and cross-domain rules are applied when a subscriber reads.
 */
async function grantsSeeing(
  store: Pick<StoreReader, 'listGrantsBySubject'>,
  subjectId: string,
  namespaces: Iterable<string> | 'all',
  now: Date,
): Promise<string[]> {
  const wanted = namespaces === 'all' ? undefined : new Set(namespaces);
  const grants = await store.listGrantsBySubject(subjectId);
  return grants
    .filter((g) => grantStatusAt(g, now) === 'active')
    .filter((g) => wanted === undefined || g.allowed_namespaces.some((ns) => wanted.has(ns)))
    .map((g) => g.grant_id);
}

/** Announces a change to claims, with the grants that may see it (and any named `also`). */
export async function announceClaims(
  tx: TxDeps,
  subjectId: string,
  kind: Extract<
    ChangeKind,
    'claims_written' | 'claims_deleted' | 'profile_created' | 'profile_deleted' | 'profile_imported'
  >,
  ids: ChangeIds,
  now: Date,
  also: Iterable<string> = [],
): Promise<void> {
  const scope = kind === 'claims_written' || kind === 'claims_deleted' ? (ids.namespaces ?? []) : 'all';
  const grants = await grantsSeeing(tx.store, subjectId, scope, now);
  await announce(tx, subjectId, kind, ids, [...grants, ...also]);
}

/** Announces decided proposals, one event per grant they came from (an event is about its grant). */
export async function announceProposalsDecided(
  tx: TxDeps,
  subjectId: string,
  proposals: readonly { proposal_id: string; grant_id: string; claim: { namespace: string } }[],
): Promise<void> {
  const byGrant = new Map<string, (typeof proposals)[number][]>();
  for (const p of proposals) byGrant.set(p.grant_id, [...(byGrant.get(p.grant_id) ?? []), p]);
  for (const [grantId, decided] of byGrant) {
    await announce(
      tx,
      subjectId,
      'proposal_decided',
      {
        proposal_ids: decided.map((p) => p.proposal_id),
        namespaces: decided.map((p) => p.claim.namespace),
      },
      [grantId],
    );
  }
}

/**
 * Ends a refresh family (every refresh token in it stops working) and announces it, if it is
 * active as the transaction reads it now: of two transactions ending one family (two replays of
 * a rotated token), only the first announces.
 */
export async function endFamily(
  tx: TxDeps,
  familyId: string,
  at: string,
  reason?: FamilyEndReason,
): Promise<void> {
  const family = await tx.store.getTokenFamily(familyId);
  if (family?.status !== 'active') return;
  await tx.store.revokeTokenFamily(familyId, at, reason);
  await announce(
    tx,
    family.subject_id,
    'refresh_family_ended',
    { family_ids: [family.family_id], grant_ids: family.grant_ids },
    family.grant_ids,
  );
}

// A grant's expiry is announced once, the first time an operation finds it past its expiry: the
// store's mark (markGrantExpiryAnnounced) decides which call announces it, across processes and
// restarts. This set only spares later reads of this process the transaction; it is safe to lose.
const announcedExpiries = new WeakMap<object, Set<string>>();
const MAX_REMEMBERED_EXPIRIES = 10_000;

/**
 * Announces `grant_expired` for a grant past its expiry at `now`, once. A read path calls it
 * when it finds such a grant; only the first call (for a grant, per process) opens a transaction.
 * The read it serves never fails for it: when the announcement cannot be written now (the file
 * locked by another process past the busy timeout, say), a later read of the grant announces it.
 */
export async function announceIfExpired(deps: Deps, grant: GrantRecord, now: Date): Promise<void> {
  if (grantStatusAt(grant, now) !== 'expired') return;
  let seen = announcedExpiries.get(deps.store);
  if (seen?.has(grant.grant_id)) return;
  try {
    await inTransaction(
      deps,
      async (tx) => {
        if (!(await tx.store.markGrantExpiryAnnounced(grant.grant_id))) return;
        await receiptOfEnd(tx, grant, now, { decision: 'expired' });
        await announce(tx, grant.subject_id, 'grant_expired', { grant_ids: [grant.grant_id] }, [
          grant.grant_id,
        ]);
      },
      { subject: grant.subject_id },
    );
  } catch {
    return;
  }
  if (seen === undefined) {
    seen = new Set();
    announcedExpiries.set(deps.store, seen);
  }
  if (seen.size >= MAX_REMEMBERED_EXPIRIES) seen.clear();
  seen.add(grant.grant_id);
}

export interface FollowOptions {
  /** Undelivered events the subscription may hold before it overflows (the feed's default). */
  readonly buffer?: number;
}

/**
 * Follows the change events of the subject's own profile, from the next commit on, or replayed
 * from the outbox after `fromSeq` first. Nothing polls: events arrive as their transactions
 * commit. A subscription that overflows ends with ChangeFeedOverflow; follow again from its
 * `lastSeq`.
 *
 * Only the subject may follow. A grantee may not (deny by default): an event's `seq` counts every
 * write of the provider, a change to claims names every grant that *might* see it, and reviews
 * exist because of claims outside a grant, so any stream of them would let a grantee tell a
 * hidden claim (and other people's activity) from an absent one. A push to grantees (MCP
 * resource notifications, say) needs a cursor of its own that reveals nothing, and must decide by
 * reading, under policy, whether what the grant sees changed (docs/store.md).
 */
export function followChanges(
  deps: Deps,
  caller: Caller,
  fromSeq?: number,
  options: FollowOptions = {},
): Result<ChangeSubscription> {
  if (caller.kind !== 'subject') {
    return fail('access_denied', "only the subject follows their profile's changes; a grant token cannot");
  }
  if (fromSeq !== undefined && (!Number.isSafeInteger(fromSeq) || fromSeq < 0)) {
    return fail('invalid_request', 'the sequence to resume from is a non-negative integer');
  }
  const subscribe = {
    ...(fromSeq !== undefined ? { fromSeq } : {}),
    ...(options.buffer !== undefined ? { buffer: options.buffer } : {}),
  };
  return ok(deps.changes.subscribe({ subjectId: caller.subjectId }, subscribe));
}
