import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from 'node:sqlite';
import type { ProfileRecord } from '../../model/profile-record.ts';

export type Row = Record<string, SQLOutputValue>;

/** Prepares each distinct SQL text once per connection; statements are reused on every call. */
export class StatementCache {
  readonly #db: DatabaseSync;
  readonly #cache = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get(sql: string): StatementSync {
    let stmt = this.#cache.get(sql);
    if (stmt === undefined) {
      stmt = this.#db.prepare(sql);
      this.#cache.set(sql, stmt);
    }
    return stmt;
  }
}

/** A row as either store's driver gives it: the helpers below only read columns by name. */
type AnyRow = Readonly<Record<string, unknown>>;

export function text(row: AnyRow, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new TypeError(`column ${column}: expected text, got ${typeof value}`);
  return value;
}

export function integer(row: AnyRow, column: string): number {
  const value = row[column];
  if (typeof value !== 'number')
    throw new TypeError(`column ${column}: expected integer, got ${typeof value}`);
  return value;
}

/** Parses a JSON `body` column; the caller names the record type it wrote there. */
export function body<T>(row: AnyRow): T {
  return JSON.parse(text(row, 'body')) as T;
}

// JSON.stringify drops properties whose value is undefined, so an optional field that was
// absent (or explicitly undefined) stays absent after the round trip instead of becoming null.
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

export function profileFromRow(row: AnyRow): ProfileRecord {
  const policy = row['default_policy'];
  const base = {
    profile_id: text(row, 'profile_id'),
    subject_id: text(row, 'subject_id'),
    created_at: text(row, 'created_at'),
    updated_at: text(row, 'updated_at'),
  };
  return typeof policy === 'string' ? { ...base, default_policy: JSON.parse(policy) } : base;
}

/** Epoch milliseconds of an RFC 3339 timestamp; audit time filters compare instants, not text. */
export function instant(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`not an RFC 3339 timestamp: ${JSON.stringify(value)}`);
  return ms;
}

/** The lists paged by `seq`: each has its own cursor letter, so one list's cursor is not another's. */
export type CursorKind = 'audit' | 'audit-newest' | 'history';
// A cursor also says which way its list runs: one of a newest-first page does not go on oldest first.
const CURSOR_LETTER: Record<CursorKind, string> = { audit: 'a', 'audit-newest': 'n', history: 'h' };

// A cursor is the `seq` of the last item returned, base64url-encoded so callers treat it as
// opaque and do not start doing arithmetic on it.
export function encodeCursor(kind: CursorKind, seq: number): string {
  return Buffer.from(`${CURSOR_LETTER[kind]}${seq}`, 'utf8').toString('base64url');
}

/** The `seq` a cursor of `kind` stands for; anything else throws RangeError. */
export function decodeCursor(kind: CursorKind, cursor: string): number {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = new RegExp(`^${CURSOR_LETTER[kind]}(\\d{1,15})$`).exec(raw);
  if (match === null || encodeCursor(kind, Number(match[1])) !== cursor) {
    throw new RangeError(`invalid ${kind} cursor`);
  }
  return Number(match[1]);
}

export function clampLimit(limit: number): number {
  const n = Math.trunc(limit);
  if (Number.isNaN(n)) return 1;
  return Math.min(500, Math.max(1, n));
}

/**
 * One page of a table read in `seq` order (the audit log, claim history): the rows matching every
 * filter whose value is given (`[clause, value]`, left out when the value is undefined), after the
 * cursor. One row past the page tells whether another page exists without a second query; the
 * SQL text varies only by which filters are present, so the statement cache stays small.
 */
export function seqPage(
  sql: StatementCache,
  table: 'audit_events' | 'claim_history',
  kind: CursorKind,
  filters: readonly (readonly [string, SQLInputValue | undefined])[],
  cursor: string | undefined,
  requested: number,
): { rows: Row[]; next_cursor?: string } {
  const present = filters.filter(([, value]) => value !== undefined);
  if (cursor !== undefined) present.push(['seq > ?', decodeCursor(kind, cursor)]);
  const limit = clampLimit(requested);
  const where = present.map(([clause]) => clause).join(' AND ');
  const rows = sql
    .get(`SELECT seq, body FROM ${table} WHERE ${where} ORDER BY seq LIMIT ?`)
    .all(...present.map(([, value]) => value as SQLInputValue), limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return rows.length > limit && last !== undefined
    ? { rows: page, next_cursor: encodeCursor(kind, integer(last, 'seq')) }
    : { rows: page };
}
