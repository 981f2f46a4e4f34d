import type { Row } from '../rows.ts';

/**
 * Reads `version` and the bodies from one statement (a LEFT JOIN from the profile row), so the
 * version and the content come from the same snapshot. Returns undefined for a missing profile.
 */
export function versionedBodies(rows: readonly Row[]): { version: number; bodies: string[] } | undefined {
  const first = rows[0];
  if (first === undefined) return undefined;
  const bodies: string[] = [];
  for (const row of rows) if (typeof row['body'] === 'string') bodies.push(row['body']);
  return { version: Number(first['version']), bodies };
}
