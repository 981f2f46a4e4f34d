import type { TestDatabase } from './test-database.ts';

/**
 * Sets every change time the store keeps for a profile (`claim_changes`, SQLite's migration 0010,
 * PostgreSQL's 0001) to `at`, as no API can: the times come from the database's own clock, so
 * neither an operation nor the provider's clock sets them. For tests of what a grantee is told
 * about times of change. The profile's version moves too, as every claim write moves it, so a read
 * cache keyed on it lets the new times through. The same statements on either store: one table,
 * one counter, kept by each store's triggers the same way.
 */
export function setChangeTimes(database: TestDatabase, profileId: string, at: string): Promise<void> {
  return database.write([
    ['UPDATE claim_changes SET changed_at = ? WHERE profile_id = ?', at, profileId],
    ['UPDATE change_counter SET n = n + 1 WHERE id = 1'],
    [
      'UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = ?',
      profileId,
    ],
  ]);
}
