import type { SQLInputValue } from 'node:sqlite';
import type { SessionRecord, SubjectRecord } from '../../model/account.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { GrantRequestRecord, GrantRequestStatus } from '../../model/grant-request.ts';
import type {
  FamilyEndReason,
  RefreshChainRecord,
  RefreshTokenRecord,
  TokenFamilyRecord,
} from '../../model/token-family.ts';
import type { ConsentArea, Sync } from '../query-areas.ts';
import { chainFromRow } from '../row-mappers.ts';
import { GRANT_REQUEST_COLUMNS, grantRequestRow, placeholders } from '../row-values.ts';
import { body, bodyOf, text, toJson } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { RecordCache } from './record-cache.ts';
import type { StatementCache } from './statement-cache.ts';

type GrantRequestPatch = Parameters<ConsentArea['transitionGrantRequest']>[2];

/**
 * The consent side of the store (subjects, sessions, grant requests, token families, refresh
 * tokens) as synchronous SQL over a connection's statement cache. As everywhere in sqlite/, a write may be several statements: the caller runs it in a transaction or savepoint.
 *
 * The two compare-and-set writes (transitionGrantRequest, rotateRefreshToken) test the status in
 * the UPDATE's own WHERE clause and decide by the number of rows changed, so they stay correct
 * even without the in-process write mutex (another process on the file, or PostgreSQL later).
 * They rewrite `body` with json_set in the same statement, so it never disagrees with the columns.
 */
export function consentQueries(sql: StatementCache, records?: RecordCache): Sync<ConsentArea> {
  const one = <T>(query: string, ...params: SQLInputValue[]): T | undefined =>
    bodyOf<T>(sql.get(query).get(...params));
  const getSubject = (subjectId: string) =>
    one<SubjectRecord>('SELECT body FROM subjects WHERE subject_id = ?', subjectId);
  const insertRefreshToken = (token: RefreshTokenRecord): void => {
    sql
      .get(
        `INSERT INTO refresh_tokens (token_hash, family_id, status, expires_at, body)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(token.token_hash, token.family_id, token.status, token.expires_at, toJson(token));
  };
  const insertRefreshChain = (chain: RefreshChainRecord): void => {
    sql
      .get(
        `INSERT INTO refresh_chains (family_id, seed, generation, issued_at, expires_at)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(chain.family_id, chain.seed, chain.generation, chain.issued_at, chain.expires_at);
  };

  return {
    getSubject,

    getSubjectByUsername(username: string): SubjectRecord | undefined {
      return one('SELECT body FROM subjects WHERE username = ?', username);
    },

    getSession(sessionHash: string): SessionRecord | undefined {
      return one('SELECT body FROM sessions WHERE session_hash = ?', sessionHash);
    },

    getGrantRequest(grantRequestId: string): GrantRequestRecord | undefined {
      return one('SELECT body FROM grant_requests WHERE grant_request_id = ?', grantRequestId);
    },

    getTokenFamily(familyId: string): TokenFamilyRecord | undefined {
      const load = () =>
        one<TokenFamilyRecord>('SELECT body FROM token_families WHERE family_id = ?', familyId);
      // A rotation reads its family and does not change it: kept from one rotation to the next.
      return records === undefined ? load() : records.read(`family ${familyId}`, load);
    },

    getRefreshToken(tokenHash: string): RefreshTokenRecord | undefined {
      return one('SELECT body FROM refresh_tokens WHERE token_hash = ?', tokenHash);
    },

    getRefreshChain(familyId: string): RefreshChainRecord | undefined {
      // Not kept in `records`: every rotation changes it.
      const row = sql
        .get(
          'SELECT family_id, seed, generation, issued_at, expires_at FROM refresh_chains WHERE family_id = ?',
        )
        .get(familyId);
      return row === undefined ? undefined : chainFromRow(row);
    },

    listTokenFamiliesByGrant(grantId: string): TokenFamilyRecord[] {
      return sql
        .get(
          `SELECT f.body AS body FROM family_grants g JOIN token_families f ON f.family_id = g.family_id
           WHERE g.grant_id = ? ORDER BY f.family_id`,
        )
        .all(grantId)
        .map((row) => body<TokenFamilyRecord>(row));
    },

    insertSubject(subject: SubjectRecord): void {
      // DO NOTHING covers both unique keys; which one was taken is then looked up, so the caller
      // gets an IdConflictError naming it rather than a SQLite constraint message.
      const result = sql
        .get('INSERT INTO subjects (subject_id, username, body) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
        .run(subject.subject_id, subject.username, toJson(subject));
      if (Number(result.changes) > 0) return;
      if (getSubject(subject.subject_id) !== undefined) {
        throw new IdConflictError(subject.subject_id, 'subject');
      }
      throw new IdConflictError(subject.username, 'username');
    },

    insertSession(session: SessionRecord): void {
      sql
        .get('INSERT INTO sessions (session_hash, subject_id, expires_at, body) VALUES (?, ?, ?, ?)')
        .run(session.session_hash, session.subject_id, session.expires_at, toJson(session));
    },

    deleteSession(sessionHash: string): boolean {
      const result = sql.get('DELETE FROM sessions WHERE session_hash = ?').run(sessionHash);
      return Number(result.changes) > 0;
    },

    subjectForPairwise(clientId: string, pairwiseId: string): string | undefined {
      const row = sql
        .get('SELECT subject_id FROM pairwise_subjects WHERE client_id = ? AND pairwise_id = ?')
        .get(clientId, pairwiseId);
      return row === undefined ? undefined : text(row, 'subject_id');
    },

    rememberPairwiseSubject(clientId: string, pairwiseId: string, subjectId: string): void {
      sql
        .get(
          `INSERT INTO pairwise_subjects (client_id, pairwise_id, subject_id) VALUES (?, ?, ?)
           ON CONFLICT (client_id, pairwise_id) DO NOTHING`,
        )
        .run(clientId, pairwiseId, subjectId);
    },

    insertGrantRequest(request: GrantRequestRecord): void {
      sql
        .get(
          `INSERT INTO grant_requests (${GRANT_REQUEST_COLUMNS}) VALUES (${placeholders(GRANT_REQUEST_COLUMNS)})`,
        )
        .run(...grantRequestRow(request));
    },

    listGrantRequestsByPackage(packageId: string): GrantRequestRecord[] {
      return sql
        .get('SELECT body FROM grant_requests WHERE package_id = ? ORDER BY package_index, grant_request_id')
        .all(packageId)
        .map((row) => body<GrantRequestRecord>(row));
    },

    listPendingGrantRequestsBySubject(subjectId: string, now: string): GrantRequestRecord[] {
      // Instants compare as text: request expiries are always written by toISOString (UTC).
      return sql
        .get(
          `SELECT body FROM grant_requests WHERE subject_id = ? AND status = 'pending' AND expires_at > ?
           ORDER BY rowid`,
        )
        .all(subjectId, new Date(now).toISOString())
        .map((row) => body<GrantRequestRecord>(row));
    },

    pruneGrantRequests(before: string, limit: number): number {
      const result = sql
        .get(
          `DELETE FROM grant_requests WHERE rowid IN (
             SELECT rowid FROM grant_requests WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
        )
        .run(new Date(before).toISOString(), limit);
      return Number(result.changes);
    },

    pruneUnusedClients(createdBefore: string, limit: number): number {
      // A token family or a pairwise id exists only for a client that got a grant: grants say it.
      const result = sql
        .get(
          `DELETE FROM clients WHERE client_id IN (
             SELECT c.client_id FROM clients c
             WHERE c.created_at < ? AND c.body ->> '$.source' IN ('dynamic', 'metadata_document')
               AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.grantee_id = c.client_id)
               AND NOT EXISTS (SELECT 1 FROM grant_requests r WHERE r.client_id = c.client_id)
             ORDER BY c.created_at LIMIT ?)`,
        )
        .run(new Date(createdBefore).toISOString(), limit);
      return Number(result.changes);
    },

    transitionGrantRequest(
      grantRequestId: string,
      expected: GrantRequestStatus,
      patch: GrantRequestPatch,
    ): GrantRequestRecord | undefined {
      // Fields given as undefined are left alone, as JSON.stringify would drop them.
      const paths: string[] = [];
      const values: SQLInputValue[] = [];
      const set = (path: string, value: string | undefined, asJson = false): void => {
        if (value === undefined) return;
        paths.push(asJson ? `'$.${path}', json(?)` : `'$.${path}', ?`);
        values.push(value);
      };
      set('status', patch.status);
      set('grant_id', patch.grant_id);
      set('decided_at', patch.decided_at);
      set('draft', patch.draft === undefined ? undefined : toJson(patch.draft), true);
      set('oauth', patch.oauth === undefined ? undefined : toJson(patch.oauth), true);
      const expires = patch.expires_at === undefined ? undefined : new Date(patch.expires_at).toISOString();
      set('expires_at', expires);
      const setBody = paths.length === 0 ? '' : `, body = json_set(body, ${paths.join(', ')})`;
      const row = sql
        .get(
          `UPDATE grant_requests SET status = ?, expires_at = coalesce(?, expires_at)${setBody}
           WHERE grant_request_id = ? AND status = ? RETURNING body`,
        )
        .get(patch.status ?? expected, expires ?? null, ...values, grantRequestId, expected);
      return row === undefined ? undefined : body<GrantRequestRecord>(row);
    },

    shortenGrantExpiry(grantId: string, expiresAt: string): GrantRecord | undefined {
      // Instants compare as text because grant expiries are always written by toISOString (UTC).
      const at = new Date(expiresAt).toISOString();
      sql
        .get(
          `UPDATE grants SET expires_at = ?, body = json_set(body, '$.expires_at', ?)
           WHERE grant_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
        )
        .run(at, at, grantId, at);
      return one('SELECT body FROM grants WHERE grant_id = ?', grantId);
    },

    insertTokenFamily(family: TokenFamilyRecord): void {
      sql
        .get(
          'INSERT INTO token_families (family_id, client_id, subject_id, status, body) VALUES (?, ?, ?, ?, ?)',
        )
        .run(family.family_id, family.client_id, family.subject_id, family.status, toJson(family));
      const link = sql.get(
        'INSERT INTO family_grants (family_id, grant_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
      );
      for (const grantId of family.grant_ids) link.run(family.family_id, grantId);
    },

    revokeTokenFamily(familyId: string, at: string, reason?: FamilyEndReason): boolean {
      // The reason goes in with the first revocation only: a later one never rewrites why it ended.
      const result = sql
        .get(
          `UPDATE token_families SET status = 'revoked',
             body = CASE WHEN body ->> '$.revoked_at' IS NULL AND ? IS NOT NULL
               THEN json_set(body, '$.status', 'revoked', '$.revoked_at', ?, '$.revoked_reason', ?)
               ELSE json_set(body, '$.status', 'revoked', '$.revoked_at', coalesce(body ->> '$.revoked_at', ?)) END
           WHERE family_id = ?`,
        )
        .run(reason ?? null, at, reason ?? null, at, familyId);
      return Number(result.changes) > 0;
    },

    insertRefreshToken,

    /**
     * Removes the refresh tokens that can never be exchanged again: expired at `now`, or of a revoked
     * family, and the chains of such families (a chain is its family's every token). Presenting one
     * afterwards gets the same invalid_grant it got before (docs/audit.md).
     */
    pruneRefreshTokens(now: string): number {
      let removed = 0;
      for (const table of ['refresh_tokens', 'refresh_chains']) {
        const result = sql
          .get(
            `DELETE FROM ${table} WHERE expires_at <= ? OR family_id IN (
               SELECT family_id FROM token_families WHERE status = 'revoked')`,
          )
          .run(now);
        removed += Number(result.changes);
      }
      return removed;
    },

    insertRefreshChain,

    advanceRefreshChain(familyId, generation, next): boolean {
      const result = sql
        .get(
          `UPDATE refresh_chains SET generation = generation + 1, issued_at = ?, expires_at = ?
           WHERE family_id = ? AND generation = ? AND EXISTS (
             SELECT 1 FROM token_families f WHERE f.family_id = refresh_chains.family_id AND f.status = 'active')`,
        )
        .run(next.issued_at, next.expires_at, familyId, generation);
      return Number(result.changes) > 0;
    },

    rotateRefreshToken(oldHash: string, next: RefreshChainRecord): boolean {
      const result = sql
        .get(
          `UPDATE refresh_tokens SET status = 'rotated', body = json_set(body, '$.status', 'rotated')
           WHERE token_hash = ? AND status = 'current' AND EXISTS (
             SELECT 1 FROM token_families f WHERE f.family_id = refresh_tokens.family_id AND f.status = 'active')`,
        )
        .run(oldHash);
      if (Number(result.changes) === 0) return false;
      // A failing insert (the family has a chain) throws; the caller's transaction then undoes the UPDATE too.
      insertRefreshChain(next);
      return true;
    },
  };
}
