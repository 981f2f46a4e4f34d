import type { ChangeDraft, ChangeEvent, ChangeIds, ChangeKind } from '../model/change-event.ts';
import { fail, ok, type Result } from '../model/errors.ts';
import type { GrantRecord } from '../model/grant-record.ts';
import type { TokenFamilyRecord } from '../model/token-family.ts';
import { grantStatusAt } from '../policy/grant-status.ts';
import type { ChangeSubscription } from '../store/change-feed.ts';
import type { StoreReader } from '../store/store.ts';
import type { Caller } from './caller.ts';
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
export async function grantsSeeing(
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

/** Announces the end of a refresh family that was active (its grants are what it is about). */
export async function announceFamilyEnded(
  tx: TxDeps,
  family: Pick<TokenFamilyRecord, 'family_id' | 'subject_id' | 'grant_ids' | 'status'>,
): Promise<void> {
  if (family.status !== 'active') return;
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
 */
export async function announceIfExpired(deps: Deps, grant: GrantRecord, now: Date): Promise<void> {
  if (grantStatusAt(grant, now) !== 'expired') return;
  let seen = announcedExpiries.get(deps.store);
  if (seen?.has(grant.grant_id)) return;
  await inTransaction(deps, async (tx) => {
    if (!(await tx.store.markGrantExpiryAnnounced(grant.grant_id))) return;
    await announce(tx, grant.subject_id, 'grant_expired', { grant_ids: [grant.grant_id] }, [grant.grant_id]);
  });
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
 * Follows the change events a caller may see, from the next commit on, or replayed from the
 * outbox after `fromSeq` first. The subject follows their own subject's events; a grantee only
 * events whose `grants` include its grant, shown as it may see them (grantEventView). Nothing
 * polls: events arrive as their transactions commit. A subscription that overflows ends with
 * ChangeFeedOverflow; follow again from its `lastSeq`.
 */
export function followChanges(
  deps: Deps,
  caller: Caller,
  fromSeq?: number,
  options: FollowOptions = {},
): Result<ChangeSubscription> {
  if (fromSeq !== undefined && (!Number.isSafeInteger(fromSeq) || fromSeq < 0)) {
    return fail('invalid_request', 'the sequence to resume from is a non-negative integer');
  }
  const subscribe = {
    ...(fromSeq !== undefined ? { fromSeq } : {}),
    ...(options.buffer !== undefined ? { buffer: options.buffer } : {}),
  };
  if (caller.kind === 'subject') {
    return ok(deps.changes.subscribe({ subjectId: caller.subjectId }, subscribe));
  }
  const grant = caller.grant;
  const events = deps.changes.subscribe(
    { subjectId: grant.subject_id, grantIds: [grant.grant_id], kinds: [...GRANTEE_KINDS] },
    subscribe,
  );
  const shownSubject = deps.pairwise.subject(grant.subject_id, caller.clientId);
  return ok(mapSubscription(events, (event) => grantEventView(event, grant, shownSubject)));
}

/**
 * The kinds a grantee may follow: what happened to its own grant and to what it proposed. A
 * change to claims is not among them, even in a namespace the grant covers: `grants` names every
 * grant that *might* see it, so the event would arrive for a claim hidden from this one (another
 * key, another domain, a deletion) as for a visible one, and tell the two apart from an absent
 * claim. Nor are cross-domain reviews, whose existence depends on claims outside the grant. What
 * a grantee can see now is learned by reading, under policy.
 */
const GRANTEE_KINDS: ReadonlySet<ChangeKind> = new Set([
  'proposal_created',
  'proposal_decided',
  'grant_created',
  'grant_narrowed',
  'grant_revoked',
  'grant_expired',
  'refresh_family_ended',
  'consent_decided',
]);

/** The kinds whose event is about the grants it names, so a grantee sees every id in it. */
const ABOUT_THE_GRANT: ReadonlySet<ChangeKind> = new Set([
  'proposal_created',
  'proposal_decided',
  'grant_created',
  'grant_narrowed',
  'grant_revoked',
  'grant_expired',
  'refresh_family_ended',
  'consent_decided',
  'cross_domain_review_requested',
  'cross_domain_review_decided',
]);

/**
 * An event as a grantee sees it: the subject under its pairwise id (never the internal one),
 * only its own grant, only namespaces inside the grant. Claim ids are left out (which claims
 * changed is learned by reading, through the grant's policy), and so are the ids of a change to
 * claims that are not about this grant.
 */
export function grantEventView(event: ChangeEvent, grant: GrantRecord, shownSubject: string): ChangeEvent {
  const allowed = new Set(grant.allowed_namespaces);
  const { claim_ids: _claims, grant_ids, namespaces, ...rest } = event.ids;
  const about = ABOUT_THE_GRANT.has(event.kind) ? rest : {};
  const ids = compactIds({
    ...about,
    grant_ids: grant_ids?.filter((id) => id === grant.grant_id),
    namespaces: namespaces?.filter((ns) => allowed.has(ns)),
  });
  return { ...event, subject_id: shownSubject, ids, grants: [grant.grant_id] };
}

function mapSubscription(
  source: ChangeSubscription,
  view: (event: ChangeEvent) => ChangeEvent,
): ChangeSubscription {
  return {
    close: () => source.close(),
    async *[Symbol.asyncIterator]() {
      for await (const event of source) yield view(event);
    },
  };
}
