import type { ResourceSubscriptionArea, Sync } from '../query-areas.ts';
import { integer, text } from '../rows.ts';
import type { StatementCache } from './statement-cache.ts';

/**
 * MCP resource subscriptions (migration 0016) as synchronous SQL. A grant's URIs come back in
 * rowid order, the order they were first added in. The add is three statements (is it there, how
 * many are, insert) that the caller runs in one transaction or savepoint on the one write
 * connection, so no other write comes between the count and the insert: the cap holds.
 */
export function resourceSubscriptionQueries(sql: StatementCache): Sync<ResourceSubscriptionArea> {
  return {
    listResourceSubscriptions(grantId) {
      return sql
        .get('SELECT uri FROM resource_subscriptions WHERE grant_id = ? ORDER BY rowid')
        .all(grantId)
        .map((row) => text(row, 'uri'));
    },
    addResourceSubscription(grantId, uri, at, cap) {
      const present = sql
        .get('SELECT 1 FROM resource_subscriptions WHERE grant_id = ? AND uri = ?')
        .get(grantId, uri);
      if (present !== undefined) return 'present';
      const held = sql
        .get('SELECT count(*) AS n FROM resource_subscriptions WHERE grant_id = ?')
        .get(grantId);
      if ((held === undefined ? 0 : integer(held, 'n')) >= cap) return 'full';
      sql
        .get('INSERT INTO resource_subscriptions (grant_id, uri, created_at) VALUES (?, ?, ?)')
        .run(grantId, uri, at);
      return 'added';
    },
    removeResourceSubscription(grantId, uri) {
      const result = sql
        .get('DELETE FROM resource_subscriptions WHERE grant_id = ? AND uri = ?')
        .run(grantId, uri);
      return Number(result.changes) > 0;
    },
    clearResourceSubscriptions(grantId) {
      return Number(sql.get('DELETE FROM resource_subscriptions WHERE grant_id = ?').run(grantId).changes);
    },
  };
}
