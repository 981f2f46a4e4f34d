import type { ResourceSubscriptionArea } from '../query-areas.ts';
import { text } from '../rows.ts';
import { lockKey, SUBSCRIPTION_LOCK } from './locks.ts';
import type { Sql } from './sql.ts';

/**
 * MCP resource subscriptions (migration 0011; the SQLite side's resource-subscription-queries.ts).
 * A grant's URIs come back in `seq` order, the order they were first added in. An add takes the
 * grant's SUBSCRIPTION_LOCK (in `schema`) in a statement of its own, and only then, in a second
 * statement, looks for the row, counts the grant's rows and inserts: under READ COMMITTED a
 * statement's snapshot is taken when it starts, so one that began before the lock was granted
 * could miss an add committed meanwhile. Every add of a grant thus counts after the one before it
 * committed, whatever the transaction's scope; a remove only lowers the count and takes no lock.
 * Like every writer, it runs inside a transaction (tx-calls.ts), which holds the lock to COMMIT.
 */
export function resourceSubscriptionQueries(sql: Sql, schema: string): ResourceSubscriptionArea {
  return {
    async listResourceSubscriptions(grantId) {
      const rows = await sql.all(
        'SELECT uri FROM resource_subscriptions WHERE grant_id = ? ORDER BY seq',
        grantId,
      );
      return rows.map((row) => text(row, 'uri'));
    },
    async addResourceSubscription(grantId, uri, at, cap) {
      // sql.get answers nothing for U+0000 (no row can hold it); a write must not pass for 'full'.
      if (`${grantId}${uri}${at}`.includes('\u0000')) throw new RangeError('U+0000 cannot be stored');
      await sql.get(
        `SELECT pg_advisory_xact_lock(${SUBSCRIPTION_LOCK}, ?::int) AS locked`,
        lockKey(schema, grantId),
      );
      const row = await sql.get(
        `WITH present AS (
           SELECT 1 FROM resource_subscriptions WHERE grant_id = ? AND uri = ?
         ), added AS (
           INSERT INTO resource_subscriptions (grant_id, uri, created_at)
           SELECT ?::text, ?::text, ?::text
           WHERE NOT EXISTS (SELECT 1 FROM present)
             AND (SELECT count(*) FROM resource_subscriptions WHERE grant_id = ?) < ?::numeric
           RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM present) AS present, EXISTS (SELECT 1 FROM added) AS added`,
        grantId,
        uri,
        grantId,
        uri,
        at,
        grantId,
        cap,
      );
      if (row?.['present'] === true) return 'present';
      return row?.['added'] === true ? 'added' : 'full';
    },
    async removeResourceSubscription(grantId, uri) {
      return (
        (await sql.run('DELETE FROM resource_subscriptions WHERE grant_id = ? AND uri = ?', grantId, uri)) > 0
      );
    },
    async clearResourceSubscriptions(grantId) {
      return sql.run('DELETE FROM resource_subscriptions WHERE grant_id = ?', grantId);
    },
  };
}
