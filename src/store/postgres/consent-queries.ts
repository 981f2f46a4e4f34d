import type { SessionRecord, SubjectRecord } from '../../model/account.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { GrantRequestRecord } from '../../model/grant-request.ts';
import type { RefreshChainRecord, RefreshTokenRecord, TokenFamilyRecord } from '../../model/token-family.ts';
import type { ConsentArea } from '../query-areas.ts';
import { chainFromRow } from '../row-mappers.ts';
import { GRANT_REQUEST_COLUMNS, grantRequestRow, placeholders } from '../row-values.ts';
import { body, bodyOf, text, toJson } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { Sql } from './sql.ts';

export type ConsentQueries = ConsentArea;

/** The fields of `patch` that are given (undefined ones are left alone), as a JSON object. */
export function patchJson(patch: object): string {
  return toJson(Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
}

/**
 * The consent side (subjects, sessions, grant requests, token families, refresh tokens; the SQLite
 * side's consent-queries.ts). The compare-and-set writes (transitionGrantRequest,
 * rotateRefreshToken) test the status in the UPDATE's own WHERE clause and decide by the rows it
 * changed, so exactly one of two racing calls wins on any number of instances; they patch `body`
 * in the same statement (ppx_json_patch, migration 0001), so it never disagrees with the columns.
 */
export function consentQueries(sql: Sql): ConsentQueries {
  const one = async <T>(query: string, ...values: unknown[]) => bodyOf<T>(await sql.get(query, ...values));
  const getSubject = (subjectId: string) =>
    one<SubjectRecord>('SELECT body FROM subjects WHERE subject_id = ?', subjectId);
  const insertRefreshToken = async (token: RefreshTokenRecord) => {
    await sql.run(
      'INSERT INTO refresh_tokens (token_hash, family_id, status, expires_at, body) VALUES (?, ?, ?, ?, ?)',
      token.token_hash,
      token.family_id,
      token.status,
      token.expires_at,
      toJson(token),
    );
  };
  const insertRefreshChain = async (chain: RefreshChainRecord) => {
    await sql.run(
      'INSERT INTO refresh_chains (family_id, seed, generation, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      chain.family_id,
      chain.seed,
      chain.generation,
      chain.issued_at,
      chain.expires_at,
    );
  };

  return {
    getSubject,
    getSubjectByUsername: (username) =>
      one<SubjectRecord>('SELECT body FROM subjects WHERE username = ?', username),
    getSession: (hash) => one<SessionRecord>('SELECT body FROM sessions WHERE session_hash = ?', hash),
    getGrantRequest: (id) =>
      one<GrantRequestRecord>('SELECT body FROM grant_requests WHERE grant_request_id = ?', id),
    getTokenFamily: (id) => one<TokenFamilyRecord>('SELECT body FROM token_families WHERE family_id = ?', id),
    getRefreshToken: (hash) =>
      one<RefreshTokenRecord>('SELECT body FROM refresh_tokens WHERE token_hash = ?', hash),
    async getRefreshChain(familyId) {
      const row = await sql.get(
        'SELECT family_id, seed, generation, issued_at, expires_at FROM refresh_chains WHERE family_id = ?',
        familyId,
      );
      return row === undefined ? undefined : chainFromRow(row);
    },
    async listTokenFamiliesByGrant(grantId) {
      const rows = await sql.all(
        `SELECT f.body AS body FROM family_grants g JOIN token_families f ON f.family_id = g.family_id
         WHERE g.grant_id = ? ORDER BY f.family_id`,
        grantId,
      );
      return rows.map((row) => body<TokenFamilyRecord>(row));
    },
    async subjectForPairwise(clientId, pairwiseId) {
      const row = await sql.get(
        'SELECT subject_id FROM pairwise_subjects WHERE client_id = ? AND pairwise_id = ?',
        clientId,
        pairwiseId,
      );
      return row === undefined ? undefined : text(row, 'subject_id');
    },
    async listGrantRequestsByPackage(packageId) {
      const rows = await sql.all(
        'SELECT body FROM grant_requests WHERE package_id = ? ORDER BY package_index, grant_request_id',
        packageId,
      );
      return rows.map((row) => body<GrantRequestRecord>(row));
    },
    async listPendingGrantRequestsBySubject(subjectId, now) {
      // Instants compare as text (in byte order): request expiries are written by toISOString.
      const rows = await sql.all(
        `SELECT body FROM grant_requests
         WHERE subject_id = ? AND status = 'pending' AND expires_at COLLATE "C" > ? ORDER BY seq`,
        subjectId,
        new Date(now).toISOString(),
      );
      return rows.map((row) => body<GrantRequestRecord>(row));
    },

    async insertSubject(subject) {
      // DO NOTHING covers both unique keys; which one was taken is then looked up.
      const inserted = await sql.run(
        'INSERT INTO subjects (subject_id, username, body) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        subject.subject_id,
        subject.username,
        toJson(subject),
      );
      if (inserted > 0) return;
      if ((await getSubject(subject.subject_id)) !== undefined) {
        throw new IdConflictError(subject.subject_id, 'subject');
      }
      throw new IdConflictError(subject.username, 'username');
    },
    async insertSession(session) {
      await sql.run(
        'INSERT INTO sessions (session_hash, subject_id, expires_at, body) VALUES (?, ?, ?, ?)',
        session.session_hash,
        session.subject_id,
        session.expires_at,
        toJson(session),
      );
    },
    async deleteSession(sessionHash) {
      return (await sql.run('DELETE FROM sessions WHERE session_hash = ?', sessionHash)) > 0;
    },
    async rememberPairwiseSubject(clientId, pairwiseId, subjectId) {
      await sql.run(
        `INSERT INTO pairwise_subjects (client_id, pairwise_id, subject_id) VALUES (?, ?, ?)
         ON CONFLICT (client_id, pairwise_id) DO NOTHING`,
        clientId,
        pairwiseId,
        subjectId,
      );
    },
    async insertGrantRequest(request) {
      await sql.run(
        `INSERT INTO grant_requests (${GRANT_REQUEST_COLUMNS}) VALUES (${placeholders(GRANT_REQUEST_COLUMNS)})`,
        ...grantRequestRow(request),
      );
    },
    async transitionGrantRequest(grantRequestId, expected, patch) {
      const { status, grant_id, decided_at, draft, oauth } = patch;
      const expires_at =
        patch.expires_at === undefined ? undefined : new Date(patch.expires_at).toISOString();
      const row = await sql.get(
        `UPDATE grant_requests SET status = ?, expires_at = coalesce(?::text, expires_at),
           body = ppx_json_patch(body, ?::json)
         WHERE grant_request_id = ? AND status = ? RETURNING body`,
        status ?? expected,
        expires_at ?? null,
        patchJson({ status, grant_id, decided_at, draft, oauth, expires_at }),
        grantRequestId,
        expected,
      );
      return bodyOf<GrantRequestRecord>(row);
    },
    async shortenGrantExpiry(grantId, expiresAt) {
      // Instants compare as text because grant expiries are always written by toISOString (UTC).
      const at = new Date(expiresAt).toISOString();
      await sql.run(
        `UPDATE grants SET expires_at = ?, body = ppx_json_patch(body, json_build_object('expires_at', ?::text))
         WHERE grant_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
        at,
        at,
        grantId,
        at,
      );
      return one<GrantRecord>('SELECT body FROM grants WHERE grant_id = ?', grantId);
    },
    async insertTokenFamily(family) {
      await sql.run(
        'INSERT INTO token_families (family_id, client_id, subject_id, status, body) VALUES (?, ?, ?, ?, ?)',
        family.family_id,
        family.client_id,
        family.subject_id,
        family.status,
        toJson(family),
      );
      for (const grantId of family.grant_ids) {
        await sql.run(
          'INSERT INTO family_grants (family_id, grant_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
          family.family_id,
          grantId,
        );
      }
    },
    async revokeTokenFamily(familyId, at, reason) {
      // The reason goes in with the first revocation only: a later one never rewrites why it ended
      // (json_strip_nulls leaves it out of the patch when there is none to write).
      const changed = await sql.run(
        `UPDATE token_families SET status = 'revoked', body = ppx_json_patch(body, json_strip_nulls(json_build_object(
           'status', 'revoked', 'revoked_at', coalesce(body::json ->> 'revoked_at', ?::text),
           'revoked_reason', CASE WHEN body::json ->> 'revoked_at' IS NULL THEN ?::text END)))
         WHERE family_id = ?`,
        at,
        reason ?? null,
        familyId,
      );
      return changed > 0;
    },
    insertRefreshToken,
    async pruneRefreshTokens(now) {
      // The tokens kept as rows, then the chains (a chain is its family's every token).
      let removed = 0;
      for (const table of ['refresh_tokens', 'refresh_chains']) {
        removed += await sql.run(
          `DELETE FROM ${table} WHERE expires_at <= ? OR family_id IN (
             SELECT family_id FROM token_families WHERE status = 'revoked')`,
          now,
        );
      }
      return removed;
    },
    async pruneGrantRequests(before, limit) {
      return sql.run(
        `DELETE FROM grant_requests WHERE grant_request_id IN (
           SELECT grant_request_id FROM grant_requests WHERE expires_at COLLATE "C" < ?
           ORDER BY expires_at COLLATE "C" LIMIT ?)`,
        new Date(before).toISOString(),
        limit,
      );
    },
    async pruneUnusedClients(createdBefore, limit) {
      // A token family or a pairwise id exists only for a client that got a grant: grants say it.
      return sql.run(
        `DELETE FROM clients WHERE client_id IN (
           SELECT c.client_id FROM clients c
           WHERE c.created_at COLLATE "C" < ?
             AND c.body::json ->> 'source' IN ('dynamic', 'metadata_document')
             AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.grantee_id = c.client_id)
             AND NOT EXISTS (SELECT 1 FROM grant_requests r WHERE r.client_id = c.client_id)
           ORDER BY c.created_at COLLATE "C" LIMIT ?)`,
        new Date(createdBefore).toISOString(),
        limit,
      );
    },
    // One statement, one round trip: the compare-and-set and the start of the family's chain
    // (which happens only when the compare-and-set changed a row). A failing insert (the family
    // has a chain) throws, and the UPDATE is undone with it.
    async rotateRefreshToken(oldHash, next) {
      const inserted = await sql.run(
        `WITH spent AS (
           UPDATE refresh_tokens SET status = 'rotated', body = ppx_json_patch(body, '{"status":"rotated"}')
           WHERE token_hash = ? AND status = 'current' AND EXISTS (
             SELECT 1 FROM token_families f WHERE f.family_id = refresh_tokens.family_id AND f.status = 'active')
           RETURNING 1)
         INSERT INTO refresh_chains (family_id, seed, generation, issued_at, expires_at)
         SELECT ?::text, ?::text, ?::bigint, ?::text, ?::text FROM spent`,
        oldHash,
        next.family_id,
        next.seed,
        next.generation,
        next.issued_at,
        next.expires_at,
      );
      return inserted > 0;
    },
    insertRefreshChain,
    async advanceRefreshChain(familyId, generation, next) {
      const changed = await sql.run(
        `UPDATE refresh_chains SET generation = generation + 1, issued_at = ?, expires_at = ?
         WHERE family_id = ? AND generation = ? AND EXISTS (
           SELECT 1 FROM token_families f WHERE f.family_id = refresh_chains.family_id AND f.status = 'active')`,
        next.issued_at,
        next.expires_at,
        familyId,
        generation,
      );
      return changed > 0;
    },
  };
}
