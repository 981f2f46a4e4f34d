import type { ProfileRecord } from '../../model/profile-record.ts';
import type { Row } from './sql.ts';

// The pure helpers of the SQLite side (instants, cursors, limits, JSON text) hold for both stores,
// so a cursor means the same on either; only reading a row differs.
export { clampLimit, decodeCursor, encodeCursor, instant, toJson } from '../sqlite/rows.ts';

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

/** The body of the first row, or undefined when there is none. */
export function bodyOf<T>(row: Row | undefined): T | undefined {
  return row === undefined ? undefined : body<T>(row);
}

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
