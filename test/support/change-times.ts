import { DatabaseSync } from 'node:sqlite';

/**
 * Sets every change time the store keeps for a profile (migration 0010's `claim_changes`) to
 * `at`, as no API can: for tests of what a grantee is told about times of change. The profile's
 * version moves too, as every claim write moves it, so the read cache lets the new times through.
 */
export function setChangeTimes(dbPath: string, profileId: string, at: string): void {
  const db = new DatabaseSync(dbPath);
  try {
    db.exec('BEGIN IMMEDIATE');
    db.prepare('UPDATE claim_changes SET changed_at = ? WHERE profile_id = ?').run(at, profileId);
    db.exec('UPDATE change_counter SET n = n + 1 WHERE id = 1');
    db.prepare(
      'UPDATE profiles SET version = (SELECT n FROM change_counter WHERE id = 1) WHERE profile_id = ?',
    ).run(profileId);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
