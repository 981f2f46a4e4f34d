// Reading and writing rows, the same on every driver: a column read by name, JSON bodies, instants,
// the opaque cursors of the lists paged by `seq`, page limits and WHERE clauses built from filters.
// Nothing here knows a database; a cursor means the same on SQLite and PostgreSQL.

/** A row as either driver gives it: the helpers below only read columns by name. */
export type Row = Readonly<Record<string, unknown>>;

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new TypeError(`column ${column}: expected text, got ${typeof value}`);
  return value;
}

export function integer(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'number')
    throw new TypeError(`column ${column}: expected integer, got ${typeof value}`);
  return value;
}

/** Parses a JSON `body` column; the caller names the record type it wrote there. */
export function body<T>(row: Row): T {
  return JSON.parse(text(row, 'body')) as T;
}

/** The body of a row, or undefined when there is none (a lookup that found nothing). */
export function bodyOf<T>(row: Row | undefined): T | undefined {
  return row === undefined ? undefined : body<T>(row);
}

// JSON.stringify drops properties whose value is undefined, so an optional field that was
// absent (or explicitly undefined) stays absent after the round trip instead of becoming null.
export function toJson(value: unknown): string {
  return JSON.stringify(value);
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

/** A WHERE clause with the values of its `?` placeholders, in order. */
export type Clause<V = unknown> = readonly [string, ...V[]];

/** The clauses joined by AND. */
export function whereOf(clauses: readonly Clause<unknown>[]): string {
  return clauses.map(([clause]) => clause).join(' AND ');
}

/** The placeholder values of the clauses, in order. */
export function valuesOf<V>(clauses: readonly Clause<V>[]): V[] {
  return clauses.flatMap(([, ...values]) => values);
}

/**
 * The clauses of one page of a list read in `seq` order (claim history): every filter whose value
 * is given (`[clause, value]`; left out when the value is undefined), then the cursor's `seq > ?`.
 * The SQL text varies only by which filters are present, so prepared statements stay few.
 */
export function seqPageClauses<V>(
  filters: readonly (readonly [string, V | undefined])[],
  kind: CursorKind,
  cursor: string | undefined,
): Clause<V | number>[] {
  const present: Clause<V | number>[] = [];
  for (const [clause, value] of filters) if (value !== undefined) present.push([clause, value]);
  if (cursor !== undefined) present.push(['seq > ?', decodeCursor(kind, cursor)]);
  return present;
}

/**
 * One page out of `limit + 1` rows read in `seq` order: the row past the page tells whether
 * another page exists without a second query, and the cursor is the last row's seq.
 */
export function seqPageOf<R extends Row>(
  rows: readonly R[],
  limit: number,
  kind: CursorKind,
): { rows: R[]; next_cursor?: string } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return rows.length > limit && last !== undefined
    ? { rows: page, next_cursor: encodeCursor(kind, integer(last, 'seq')) }
    : { rows: page };
}
