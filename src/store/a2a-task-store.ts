import type { A2aTaskRecord } from '../model/a2a-task.ts';

// The A2A task side of the store contract (issue 13; SQLite migration 0012), and the listing's
// page size and cursor, which both implementations give alike. StoreReader and
// StoreWriter in store.ts extend these interfaces; the conventions stated there hold here too.
// Every reader takes the owner (the grant id the task was made under): a task of another grant is
// not there, exactly as a missing one is not, so no caller can learn that a task id exists.

export interface A2aTaskQuery {
  /** Only tasks of this A2A context. */
  readonly contextId?: string;
  /** Only tasks in this state (the SDK's JSON name, e.g. `TASK_STATE_COMPLETED`). */
  readonly state?: string;
  /** Page size, 1..100 (a value outside is brought to the nearest bound). */
  readonly pageSize: number;
  /**
   * Opaque cursor from a previous page's `next`, given with the same owner and filters; an invalid
   * one throws RangeError.
   */
  readonly after?: string;
}

export interface A2aTaskPage {
  /** Newest `updated_at` first, ties by task_id (ascending). */
  readonly tasks: A2aTaskRecord[];
  /** Present when more tasks follow: pass it as `after` for the next page. */
  readonly next?: string;
  /** How many of the owner's tasks match the filters, over every page. */
  readonly total: number;
}

/** What one owner may keep (operations/a2a/tasks.ts#TASK_CAP_COUNT, TASK_CAP_BYTES). */
interface A2aTaskCap {
  readonly tasks: number;
  readonly bytes: number;
}

export interface A2aTaskReader {
  /** The task with this id made under `owner`; undefined when missing or made under another grant. */
  getA2aTask(taskId: string, owner: string): Promise<A2aTaskRecord | undefined>;
  /**
   * One page of the tasks made under `owner` that match the filters. Empty (total 0) for an owner
   * with none. Paging on with `next` while tasks are saved misses none that stayed unchanged and
   * gives none twice; a task saved again meanwhile moves to the front and is not on later pages.
   */
  listA2aTasks(owner: string, query: A2aTaskQuery): Promise<A2aTaskPage>;
}

export interface A2aTaskWriter {
  /**
   * Inserts a task, or replaces a stored one of the same id whole (context, state, updated_at,
   * body), keeping its first `created_at`. A task id stored under another owner throws
   * IdConflictError and changes nothing: a task never moves between grants.
   */
  putA2aTask(record: A2aTaskRecord): Promise<void>;
  /** Removes every task made under `owner` (the person deleted what it could see); returns how many. */
  deleteA2aTasksOf(owner: string): Promise<number>;
  /** Removes every task, of any owner, whose `counterpart` is this grant; returns how many. */
  deleteA2aTasksReading(grantId: string): Promise<number>;
  /**
   * Keeps what `owner` holds within `cap`: counting from its newest task (the task `keep` first,
   * whatever its time), every task past the cap's count, or past which the bodies' UTF-8 bytes sum
   * over its bytes, is removed. `keep` itself always stays. Returns how many went.
   */
  trimA2aTasksOf(owner: string, cap: A2aTaskCap, keep: string): Promise<number>;
  /**
   * Removes up to `limit` tasks last saved before `before` (ISO time), oldest first; returns how
   * many went (fewer than `limit`: none are left). Retention: a task outlives its use.
   */
  pruneA2aTasks(before: string, limit: number): Promise<number>;
}

/** The largest page a listing gives (A2A ListTasks allows 1..100). */
const PAGE_MAX = 100;

/** A requested page size brought into 1..PAGE_MAX (as audit listings clamp their limit). */
export function pageSize(requested: number): number {
  const n = Math.trunc(requested);
  if (Number.isNaN(n)) return 1;
  return Math.min(PAGE_MAX, Math.max(1, n));
}

// A cursor is the (updated_ms, task_id) of the last task of a page, base64url-encoded so callers
// treat it as opaque; the letter keeps another list's cursor from being taken for one.
export function encodeTaskCursor(ms: number, taskId: string): string {
  return Buffer.from(`t${JSON.stringify([ms, taskId])}`, 'utf8').toString('base64url');
}

/** The position a task cursor stands for; anything else throws RangeError. */
export function decodeTaskCursor(cursor: string): readonly [number, string] {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  let parsed: unknown;
  try {
    parsed = raw.startsWith('t') ? JSON.parse(raw.slice(1)) : undefined;
  } catch {
    parsed = undefined;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    Number.isSafeInteger(parsed[0]) &&
    typeof parsed[1] === 'string' &&
    encodeTaskCursor(parsed[0], parsed[1]) === cursor
  ) {
    return [parsed[0], parsed[1]];
  }
  throw new RangeError('invalid A2A task cursor');
}
