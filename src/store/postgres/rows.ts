// The pure helpers of the SQLite side (instants, cursors, limits, JSON text, reading a column)
// hold for both stores, so a cursor means the same on either and a row reads the same.
import { body } from '../sqlite/rows.ts';
import type { Row } from './sql.ts';

export {
  body,
  clampLimit,
  decodeCursor,
  encodeCursor,
  instant,
  integer,
  profileFromRow,
  text,
  toJson,
} from '../sqlite/rows.ts';

/** The body of the first row, or undefined when there is none. */
export function bodyOf<T>(row: Row | undefined): T | undefined {
  return row === undefined ? undefined : body<T>(row);
}
