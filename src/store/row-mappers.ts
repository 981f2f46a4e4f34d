import type { A2aTaskRecord } from '../model/a2a-task.ts';
import { CHANGE_KINDS, type ChangeEvent, type ChangeIds, type ChangeKind } from '../model/change-event.ts';
import type { ClaimHistoryEntry, ClaimHistoryInput } from '../model/claim-history.ts';
import type { ProfileRecord } from '../model/profile-record.ts';
import type { RefreshChainRecord } from '../model/token-family.ts';
import type { ProvenanceKind, ReviewStatus } from '../model/vocabulary.ts';
import { type A2aTaskPage, type A2aTaskQuery, decodeTaskCursor, encodeTaskCursor } from './a2a-task-store.ts';
import {
  body,
  type Clause,
  clampLimit,
  instant,
  integer,
  type Row,
  seqPageClauses,
  seqPageOf,
  text,
} from './rows.ts';
import type { ClaimChange } from './store.ts';

type Value = string | number;

import type { ClaimHistoryFilter, ClaimHistoryPage } from './writeback-store.ts';

// Rows as the records they stand for, with the columns each mapper reads: the same tables and
// columns on both drivers (docs/store.md), so one mapper serves both. Records stored whole in a
// `body` column need none (rows.ts#body); these are the ones kept as columns.

/** The columns of a profile row that profileFromRow reads. */
export const PROFILE_COLUMNS = 'profile_id, subject_id, created_at, updated_at, default_policy';

export function profileFromRow(row: Row): ProfileRecord {
  const policy = row['default_policy'];
  const base = {
    profile_id: text(row, 'profile_id'),
    subject_id: text(row, 'subject_id'),
    created_at: text(row, 'created_at'),
    updated_at: text(row, 'updated_at'),
  };
  return typeof policy === 'string' ? { ...base, default_policy: JSON.parse(policy) } : base;
}

/** A claim_changes row as the shape it stands for ('' for no domains, no review: migration 0010). */
export function claimChangeFromRow(row: Row): ClaimChange {
  const domains = text(row, 'domains');
  const status = text(row, 'review_status');
  return {
    namespace: text(row, 'namespace'),
    key: text(row, 'key'),
    ...(domains !== '' ? { applicability: { domains: JSON.parse(domains) as string[] } } : {}),
    source: { kind: text(row, 'source_kind') as ProvenanceKind },
    ...(status !== '' ? { review: { review_status: status as ReviewStatus } } : {}),
    changed_at: text(row, 'changed_at'),
  };
}

/** The columns of a change-outbox row that changeFromRow reads. */
export const CHANGE_COLUMNS = 'seq, at, subject_id, kind, ids, grants';

const KINDS: ReadonlySet<string> = new Set(CHANGE_KINDS);

/** A stored kind, checked: a row this build does not know is a store failure, not a guess. */
function changeKind(kind: string): ChangeKind {
  if (!KINDS.has(kind)) throw new Error(`the outbox holds a change of unknown kind "${kind}"`);
  return kind as ChangeKind;
}

export function changeFromRow(row: Row): ChangeEvent {
  return {
    seq: integer(row, 'seq'),
    at: text(row, 'at'),
    subject_id: text(row, 'subject_id'),
    kind: changeKind(text(row, 'kind')),
    ids: JSON.parse(text(row, 'ids')) as ChangeIds,
    grants: JSON.parse(text(row, 'grants')) as string[],
  };
}

/** The columns of an A2A task row that taskFromRow reads. */
export const TASK_COLUMNS =
  'task_id, owner, context_id, state, created_at, updated_at, updated_ms, body, counterpart';
export function taskFromRow(row: Row): A2aTaskRecord {
  return {
    task_id: text(row, 'task_id'),
    owner: text(row, 'owner'),
    context_id: text(row, 'context_id'),
    state: text(row, 'state'),
    created_at: text(row, 'created_at'),
    updated_at: text(row, 'updated_at'),
    body: text(row, 'body'),
    ...(typeof row['counterpart'] === 'string' ? { counterpart: row['counterpart'] } : {}),
  };
}

/**
 * The clauses of an A2A task listing: `filters`, the owner's tasks that match (for the total), and
 * `paged`, those after the cursor, a keyset (updated_ms, task_id) walked newest first.
 */
export function taskListClauses(
  owner: string,
  query: A2aTaskQuery,
): { filters: Clause<Value>[]; paged: Clause<Value>[] } {
  const filters: Clause<Value>[] = [['owner = ?', owner]];
  if (query.contextId !== undefined) filters.push(['context_id = ?', query.contextId]);
  if (query.state !== undefined) filters.push(['state = ?', query.state]);
  const paged = [...filters];
  if (query.after !== undefined) {
    const [ms, taskId] = decodeTaskCursor(query.after);
    // The first clause bounds the index walk; the second drops the tasks of that same instant up
    // to and including the cursor's (ties run by task_id, ascending).
    paged.push(['updated_ms <= ?', ms], ['(updated_ms < ? OR task_id > ?)', ms, taskId]);
  }
  return { filters, paged };
}

/** The page of up to `size + 1` rows of a task listing, with the count of every match. */
export function taskPageOf(rows: readonly Row[], size: number, total: number): A2aTaskPage {
  const page = rows.slice(0, size);
  const last = page.at(-1);
  const tasks = page.map(taskFromRow);
  return rows.length > size && last !== undefined
    ? { tasks, next: encodeTaskCursor(integer(last, 'updated_ms'), text(last, 'task_id')), total }
    : { tasks, total };
}

/** The clauses and page size of a claim-history listing (claim_history, read in `seq` order). */
export function claimHistoryWalk(filter: ClaimHistoryFilter): { clauses: Clause[]; limit: number } {
  const clauses = seqPageClauses<unknown>(
    [
      ['profile_id = ?', filter.profile_id],
      ['claim_id = ?', filter.claim_id],
      ['at_ms >= ?', filter.since === undefined ? undefined : instant(filter.since)],
      ['at_ms < ?', filter.until === undefined ? undefined : instant(filter.until)],
    ],
    'history',
    filter.cursor,
  );
  return { clauses, limit: clampLimit(filter.limit) };
}

/** The page of up to limit + 1 `seq, body` rows of claimHistoryWalk's clauses. */
export function claimHistoryPageOf(rows: readonly Row[], limit: number): ClaimHistoryPage {
  const { rows: page, next_cursor } = seqPageOf(rows, limit, 'history');
  const entries = page.map(
    (row): ClaimHistoryEntry => ({ ...body<ClaimHistoryInput>(row), seq: integer(row, 'seq') }),
  );
  return next_cursor !== undefined ? { entries, next_cursor } : { entries };
}

/** A row of refresh_chains, its columns as they are named. */
export function chainFromRow(row: Row): RefreshChainRecord {
  return {
    family_id: text(row, 'family_id'),
    seed: text(row, 'seed'),
    generation: integer(row, 'generation'),
    issued_at: text(row, 'issued_at'),
    expires_at: text(row, 'expires_at'),
  };
}
