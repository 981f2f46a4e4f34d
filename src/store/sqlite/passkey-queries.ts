import { passkeyOf, ticketOf } from '../passkey-rows.ts';
import type { PasskeyArea, Sync } from '../query-areas.ts';
import { IdConflictError } from '../store.ts';
import type { StatementCache } from './statement-cache.ts';

/**
 * Passkeys and their tickets (migration 0018) as synchronous SQL. A ticket is taken by one
 * DELETE … RETURNING, so a challenge or a link is used at most once; the counter moves by a
 * compare-and-set on its old value.
 */
export function passkeyQueries(sql: StatementCache): Sync<PasskeyArea> {
  return {
    listPasskeys(subjectId) {
      return sql
        .get('SELECT * FROM passkeys WHERE subject_id = ? ORDER BY created_at, credential_id')
        .all(subjectId)
        .map(passkeyOf);
    },
    getPasskey(credentialId) {
      const row = sql.get('SELECT * FROM passkeys WHERE credential_id = ?').get(credentialId);
      return row === undefined ? undefined : passkeyOf(row);
    },
    getPasskeyTicket(hash, kind, now) {
      const row = sql
        .get('SELECT * FROM passkey_tickets WHERE ticket_hash = ? AND kind = ? AND expires_at > ?')
        .get(hash, kind, now);
      return row === undefined ? undefined : ticketOf(row);
    },
    insertPasskey(p) {
      const result = sql
        .get(
          `INSERT INTO passkeys (credential_id, subject_id, public_key, counter, transports, name, created_at, last_used_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        )
        .run(
          p.credential_id,
          p.subject_id,
          p.public_key,
          p.counter,
          JSON.stringify(p.transports),
          p.name,
          p.created_at,
          p.last_used_at ?? null,
        );
      if (Number(result.changes) === 0) throw new IdConflictError(p.credential_id, 'passkey');
    },
    usePasskey(credentialId, expected, counter, at) {
      const result = sql
        .get('UPDATE passkeys SET counter = ?, last_used_at = ? WHERE credential_id = ? AND counter = ?')
        .run(counter, at, credentialId, expected);
      return Number(result.changes) > 0;
    },
    deletePasskey(subjectId, credentialId) {
      const result = sql
        .get('DELETE FROM passkeys WHERE subject_id = ? AND credential_id = ?')
        .run(subjectId, credentialId);
      return Number(result.changes) > 0;
    },
    putPasskeyTicket(t) {
      const result = sql
        .get(
          `INSERT INTO passkey_tickets (ticket_hash, kind, subject_id, body, expires_at)
           VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        )
        .run(t.ticket_hash, t.kind, t.subject_id ?? null, t.body, t.expires_at);
      if (Number(result.changes) === 0) throw new IdConflictError(t.ticket_hash, 'passkey ticket');
    },
    takePasskeyTicket(hash, kind, now) {
      const row = sql
        .get('DELETE FROM passkey_tickets WHERE ticket_hash = ? AND kind = ? AND expires_at > ? RETURNING *')
        .get(hash, kind, now);
      return row === undefined ? undefined : ticketOf(row);
    },
    prunePasskeyTickets(before, limit) {
      const result = sql
        .get(
          `DELETE FROM passkey_tickets WHERE ticket_hash IN
             (SELECT ticket_hash FROM passkey_tickets WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
        )
        .run(before, limit);
      return Number(result.changes);
    },
  };
}
