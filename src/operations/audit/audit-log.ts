import { share } from '../../cache/identity-memo.ts';
import { type AuditAction, type AuditEvent, mintedEvent } from '../../model/audit-event.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { newTimeOrderedId } from '../../model/ids.ts';
import type { AuditFilter, AuditPage } from '../../store/store.ts';
import type { Caller } from '../callers/caller.ts';
import type { AnyDeps, Deps } from '../deps.ts';
import { noticeAuditAppended } from './audit-notices.ts';

const NO_KEYS: readonly string[] = Object.freeze([]);

export interface AuditEntry {
  readonly action: AuditAction;
  readonly grantId?: string | undefined;
  readonly claimKeys?: readonly string[];
  readonly outcome?: 'ok' | 'denied';
  readonly detail?: string;
}

/**
 * Appends one audit event about a subject's profile (SPEC §10 MUST 3: audit access to any
 * non-public claim). Written before the response is sent, so an answered read is never missing
 * from the log. Inside a transaction (TxDeps) it commits with the transaction's writes; outside
 * one it joins the store's group commit.
 */
export async function recordAudit(
  deps: AnyDeps,
  actor: AuditEvent['actor'],
  subjectId: string,
  entry: AuditEntry,
  at: Date,
): Promise<void> {
  const event: AuditEvent = mintedEvent({
    event_id: newTimeOrderedId('event', at.getTime()),
    at: at.toISOString(),
    subject_id: subjectId,
    actor,
    action: entry.action,
    // Shared, not copied: a read's key list is the same array for every read of one scope
    // (reads/visible-profile.ts#keysOf); the event is only handed to the store.
    claim_keys: (entry.claimKeys ?? NO_KEYS) as string[],
    outcome: entry.outcome ?? 'ok',
    ...(entry.grantId !== undefined ? { grant_id: entry.grantId } : {}),
    ...(entry.detail !== undefined ? { detail: entry.detail } : {}),
  });
  await deps.store.appendAudit([event]);
  // Outside a transaction the entry is committed now; inside one, the transaction's own change
  // event tells the person's page after COMMIT (audit-notices.ts).
  if ('transaction' in deps.store) noticeAuditAppended(deps, subjectId);
}

export async function recordCallerAudit(
  deps: AnyDeps,
  caller: Caller,
  subjectId: string,
  entry: AuditEntry,
  at: Date,
) {
  const grantId = caller.kind === 'grant' ? caller.grant.grant_id : entry.grantId;
  // callers/caller.ts#actorOf, not imported: the caller's module logs refused calls through here.
  const actor: AuditEvent['actor'] =
    caller.kind === 'subject'
      ? { kind: 'subject', id: caller.subjectId }
      : { kind: 'grantee', id: caller.clientId };
  await recordAudit(deps, actor, subjectId, { ...entry, grantId }, at);
}

export interface AuditQuery {
  readonly grant_id?: string | undefined;
  readonly action?: AuditAction | undefined;
  /** Alias of `action`; giving both with different values is a bad request. */
  readonly kind?: AuditAction | undefined;
  /** Only events whose actor has this id (a grantee's client id, or the subject's id). */
  readonly grantee?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
  /** `oldest` (default) or `newest` first. */
  readonly order?: 'oldest' | 'newest' | undefined;
}

/**
 * The audit log a caller may see: the subject sees every event about their profile; a grantee
 * sees only the events of its own grant (and never the subject's internal id). The events of a
 * page that name one set of claim keys share one frozen list (store/audit-rows.ts), marked shared
 * here so that a surface serializes it once per page (surfaces/shared/json-text.ts).
 */
export async function listAuditEvents(
  deps: Deps,
  caller: Caller,
  query: AuditQuery,
): Promise<Result<AuditPage>> {
  const limit = query.limit ?? 100;
  if (query.action !== undefined && query.kind !== undefined && query.action !== query.kind) {
    return fail('invalid_request', '`kind` is an alias of `action`; give one, or the same value');
  }
  const action = query.action ?? query.kind;
  const base = {
    ...(action !== undefined ? { action } : {}),
    ...(query.since !== undefined ? { since: query.since } : {}),
    ...(query.until !== undefined ? { until: query.until } : {}),
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    ...(query.order !== undefined ? { order: query.order } : {}),
    limit,
  };
  if (query.cursor !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(query.cursor)) {
    return fail('invalid_request', 'cursor must be a next_cursor value from an earlier page');
  }
  try {
    const page = await listPage(deps, caller, query, base);
    if (page.ok) for (const e of page.value.events) share(e.claim_keys);
    return page;
  } catch (e) {
    // The store refuses a cursor it did not issue; that is the caller's mistake, not ours.
    if (e instanceof RangeError)
      return fail('invalid_request', 'cursor must be a next_cursor value from an earlier page');
    throw e;
  }
}

async function listPage(
  deps: Deps,
  caller: Caller,
  query: AuditQuery,
  base: Omit<AuditFilter, 'subject_id'>,
): Promise<Result<AuditPage>> {
  if (caller.kind === 'subject') {
    return ok(
      await deps.store.listAudit({
        ...base,
        subject_id: caller.subjectId,
        ...(query.grant_id !== undefined ? { grant_id: query.grant_id } : {}),
        ...(query.grantee !== undefined ? { actor_id: query.grantee } : {}),
      }),
    );
  }
  const grant = caller.grant;
  // A grantee asking about another grant gets an empty page, as if that grant had no events.
  if (query.grant_id !== undefined && query.grant_id !== grant.grant_id) return ok({ events: [] });
  if (query.grantee !== undefined && query.grantee !== caller.clientId) return ok({ events: [] });
  const page = await deps.store.listAudit({
    ...base,
    subject_id: grant.subject_id,
    grant_id: grant.grant_id,
    actor_id: caller.clientId,
  });
  const shown = deps.pairwise.subject(grant.subject_id, caller.clientId);
  return ok({ ...page, events: page.events.map((e) => ({ ...e, subject_id: shown })) });
}
