import type { TestDatabase } from './test-database.ts';

/**
 * Sets every change time the store keeps for a profile (`claim_changes`, SQLite's migration 0010,
 * PostgreSQL's 0001) to `at`, as no API can: the times come from the database's own clock, so
 * neither an operation nor the provider's clock sets them. For tests of what a grantee is told
 * about times of change. The profile's version moves too, as every claim write moves it, so a read
 * cache keyed on it lets the new times through.
 */
export function setChangeTimes(database: TestDatabase, profileId: string, at: string): Promise<void> {
  return database.write([
    ['UPDATE claim_changes SET changed_at = ? WHERE profile_id = ?', at, profileId],
    // A version never used before, as each store's triggers give one: SQLite's counter row,
    // PostgreSQL's ppx_bump_versions (a sequence since its migration 0007).
    ...(database.kind === 'sqlite'
      ? ([
          ['UPDATE change_counter SET n = n + 1 WHERE id = 1'],
          [
            'UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = ?',
            profileId,
          ],
        ] as const)
      : ([['SELECT ppx_bump_versions(?::text)', profileId]] as const)),
  ]);
}
