import { passkeyOf, ticketOf } from '../passkey-rows.ts';
import type { PasskeyArea } from '../query-areas.ts';
import { IdConflictError } from '../store.ts';
import type { Sql } from './sql.ts';

/**
 * Passkeys and their tickets (migration 0013; the SQLite side's passkey-queries.ts). A ticket is
 * taken by one DELETE … RETURNING (of two concurrent takes, one gets the row); the counter moves
 * by a compare-and-set on its old value in one UPDATE.
 */
export function passkeyQueries(sql: Sql): PasskeyArea {
  return {
    async listPasskeys(subjectId) {
      const rows = await sql.all(
        'SELECT * FROM passkeys WHERE subject_id = ? ORDER BY created_at, credential_id',
        subjectId,
      );
      return rows.map(passkeyOf);
    },
    async getPasskey(credentialId) {
      const row = await sql.get('SELECT * FROM passkeys WHERE credential_id = ?', credentialId);
      return row === undefined ? undefined : passkeyOf(row);
    },
    async getPasskeyTicket(hash, kind, now) {
      const row = await sql.get(
        'SELECT * FROM passkey_tickets WHERE ticket_hash = ? AND kind = ? AND expires_at > ?',
        hash,
        kind,
        now,
      );
      return row === undefined ? undefined : ticketOf(row);
    },
    async insertPasskey(p) {
      const inserted = await sql.run(
        `INSERT INTO passkeys (credential_id, subject_id, public_key, counter, transports, name, created_at, last_used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        p.credential_id,
        p.subject_id,
        p.public_key,
        p.counter,
        JSON.stringify(p.transports),
        p.name,
        p.created_at,
        p.last_used_at ?? null,
      );
      if (inserted === 0) throw new IdConflictError(p.credential_id, 'passkey');
    },
    async usePasskey(credentialId, expected, counter, at) {
      const changed = await sql.run(
        'UPDATE passkeys SET counter = ?, last_used_at = ? WHERE credential_id = ? AND counter = ?',
        counter,
        at,
        credentialId,
        expected,
      );
      return changed > 0;
    },
    async deletePasskey(subjectId, credentialId) {
      return (
        (await sql.run(
          'DELETE FROM passkeys WHERE subject_id = ? AND credential_id = ?',
          subjectId,
          credentialId,
        )) > 0
      );
    },
    async putPasskeyTicket(t) {
      const inserted = await sql.run(
        `INSERT INTO passkey_tickets (ticket_hash, kind, subject_id, body, expires_at)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        t.ticket_hash,
        t.kind,
        t.subject_id ?? null,
        t.body,
        t.expires_at,
      );
      if (inserted === 0) throw new IdConflictError(t.ticket_hash, 'passkey ticket');
    },
    async takePasskeyTicket(hash, kind, now) {
      const row = await sql.get(
        'DELETE FROM passkey_tickets WHERE ticket_hash = ? AND kind = ? AND expires_at > ? RETURNING *',
        hash,
        kind,
        now,
      );
      return row === undefined ? undefined : ticketOf(row);
    },
    async prunePasskeyTickets(before, limit) {
      return sql.run(
        `DELETE FROM passkey_tickets WHERE ticket_hash IN
           (SELECT ticket_hash FROM passkey_tickets WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
        before,
        limit,
      );
    },
  };
}
