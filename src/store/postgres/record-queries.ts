import type { Claim } from '../../model/claim.ts';
import type { ClientRecord } from '../../model/client.ts';
import type { ContextModifier } from '../../model/context-modifier.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { SigningKeyRecord } from '../../model/signing-key.ts';
import { ContentCache } from '../content-cache.ts';
import type { RecordArea } from '../query-areas.ts';
import { claimChangeFromRow, PROFILE_COLUMNS, profileFromRow } from '../row-mappers.ts';
import { GRANT_COLUMNS, grantRow, placeholders } from '../row-values.ts';
import { body, bodyOf, integer, text, toJson } from '../rows.ts';
import { IdConflictError } from '../store.ts';
import type { Sql } from './sql.ts';

export type RecordQueries = RecordArea;

/**
 * Profiles, claims, modifiers, grants, clients, signing keys and settings (the SQLite side's
 * record-queries.ts) as SQL on one connection or the pool. No read cache yet: every read is a query.
 * A write may be several statements; the store runs it in a transaction or a savepoint.
 */
export interface RecordQueryOptions {
  /**
   * Keep parsed claims and modifiers per profile version (store/content-cache.ts). Only for reads
   * of committed data (the pool outside a transaction).
   */
  readonly cacheContent?: boolean;
}

export function recordQueries(sql: Sql, options: RecordQueryOptions = {}): RecordQueries {
  const cache = options.cacheContent
    ? { claims: new ContentCache<Claim>(), modifiers: new ContentCache<ContextModifier>() }
    : undefined;
  /**
   * Claims with distinct ids, in one upsert. Its WHERE makes a claim id owned by another profile a
   * no-op, which is then reported: ids are never reused, so that is a bug upstream, not a move.
   */
  const upsertClaims = async (profileId: string, claims: readonly Claim[]): Promise<void> => {
    if (claims.length === 0) return;
    const written = await sql.all(
      `INSERT INTO claims (claim_id, profile_id, namespace, key, body)
       SELECT c.claim_id, ?, c.namespace, c.key, c.body
         FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
           AS c (claim_id, namespace, key, body, n)
        ORDER BY c.n
       ON CONFLICT (claim_id) DO UPDATE SET namespace = excluded.namespace, key = excluded.key,
         body = excluded.body
       WHERE claims.profile_id = excluded.profile_id
       RETURNING claim_id`,
      profileId,
      claims.map((c) => c.claim_id),
      claims.map((c) => c.namespace),
      claims.map((c) => c.key),
      claims.map((c) => toJson(c)),
    );
    if (written.length < claims.length) {
      const done = new Set(written.map((row) => text(row, 'claim_id')));
      const lost = claims.find((c) => !done.has(c.claim_id)) ?? claims[0]!;
      throw new IdConflictError(lost.claim_id, 'claim');
    }
  };
  const getProfile = async (profileId: string) => {
    const row = await sql.get(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE profile_id = ?`, profileId);
    return row === undefined ? undefined : profileFromRow(row);
  };
  const listClaims = async (profileId: string): Promise<Claim[]> =>
    (
      await sql.all(
        'SELECT body FROM claims WHERE profile_id = ? ORDER BY namespace, key, claim_id',
        profileId,
      )
    ).map((row) => body<Claim>(row));
  const listModifiers = async (profileId: string): Promise<ContextModifier[]> =>
    (await sql.all('SELECT body FROM modifiers WHERE profile_id = ? ORDER BY modifier_id', profileId)).map(
      (row) => body<ContextModifier>(row),
    );
  const getGrant = async (grantId: string) =>
    bodyOf<GrantRecord>(await sql.get('SELECT body FROM grants WHERE grant_id = ?', grantId));
  const getSetting = async (name: string) => {
    const row = await sql.get('SELECT value FROM settings WHERE name = ?', name);
    return row === undefined ? undefined : text(row, 'value');
  };

  return {
    async getProfileBySubject(subjectId) {
      const row = await sql.get(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE subject_id = ?`, subjectId);
      return row === undefined ? undefined : profileFromRow(row);
    },
    getProfile,
    async getProfileContent(profileId) {
      // The version first (one indexed row): while it holds, the parsed content is the cache's.
      if (cache !== undefined) {
        const row = await sql.get(
          `SELECT ${PROFILE_COLUMNS}, version FROM profiles WHERE profile_id = ?`,
          profileId,
        );
        if (row === undefined) return undefined;
        const version = integer(row, 'version');
        const claims = cache.claims.get(profileId, version);
        const modifiers = cache.modifiers.get(profileId, version);
        if (claims !== undefined && modifiers !== undefined)
          return { profile: profileFromRow(row), claims, modifiers };
      }
      // One statement, so the profile, its version and its content come from one snapshot.
      const rows = await sql.all(
        `SELECT ${PROFILE_COLUMNS}, version,
           (SELECT coalesce(json_agg(c.body ORDER BY c.namespace, c.key, c.claim_id), '[]')::text
              FROM claims c WHERE c.profile_id = p.profile_id) AS claims,
           (SELECT coalesce(json_agg(m.body ORDER BY m.modifier_id), '[]')::text
              FROM modifiers m WHERE m.profile_id = p.profile_id) AS modifiers
         FROM profiles p WHERE p.profile_id = ?`,
        profileId,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      // json_agg of text gives an array of JSON strings, each one a stored body.
      const parse = <T>(column: string) =>
        (JSON.parse(text(row, column)) as string[]).map((b) => JSON.parse(b) as T);
      const claims = parse<Claim>('claims');
      const modifiers = parse<ContextModifier>('modifiers');
      if (cache === undefined) return { profile: profileFromRow(row), claims, modifiers };
      const version = integer(row, 'version');
      return {
        profile: profileFromRow(row),
        claims: cache.claims.set(profileId, version, claims),
        modifiers: cache.modifiers.set(profileId, version, modifiers),
      };
    },
    listClaims,
    listModifiers,
    async listClaimChanges(profileId) {
      const rows = await sql.all(
        `SELECT namespace, key, domains, source_kind, review_status, changed_at FROM claim_changes
         WHERE profile_id = ? ORDER BY namespace, key, domains, source_kind, review_status`,
        profileId,
      );
      return rows.map(claimChangeFromRow);
    },
    getGrant,
    async listGrantsBySubject(subjectId) {
      const rows = await sql.all(
        'SELECT body FROM grants WHERE subject_id = ? ORDER BY granted_at DESC, grant_id',
        subjectId,
      );
      return rows.map((row) => body<GrantRecord>(row));
    },
    async getClient(clientId) {
      return bodyOf<ClientRecord>(await sql.get('SELECT body FROM clients WHERE client_id = ?', clientId));
    },
    async listClients() {
      return (await sql.all('SELECT body FROM clients ORDER BY client_id')).map((row) =>
        body<ClientRecord>(row),
      );
    },
    async listSigningKeys() {
      return (await sql.all('SELECT body FROM signing_keys ORDER BY created_at DESC, kid DESC')).map((row) =>
        body<SigningKeyRecord>(row),
      );
    },
    getSetting,
    async countProfiles() {
      const row = await sql.get('SELECT count(*) AS n FROM profiles');
      return row === undefined ? 0 : integer(row, 'n');
    },

    async insertProfile(profile) {
      await sql.run(
        `INSERT INTO profiles (${PROFILE_COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
        profile.profile_id,
        profile.subject_id,
        profile.created_at,
        profile.updated_at,
        profile.default_policy === undefined ? null : toJson(profile.default_policy),
      );
    },
    async touchProfile(profileId, updatedAt, defaultPolicy) {
      const changed =
        defaultPolicy === undefined
          ? await sql.run('UPDATE profiles SET updated_at = ? WHERE profile_id = ?', updatedAt, profileId)
          : await sql.run(
              'UPDATE profiles SET updated_at = ?, default_policy = ? WHERE profile_id = ?',
              updatedAt,
              toJson(defaultPolicy),
              profileId,
            );
      return changed > 0;
    },
    async putClaims(profileId, claims) {
      // One statement for the list (a profile import is hundreds of claims, and each statement is a
      // round trip); a list naming one id twice is written in order, one by one, as one upsert may
      // not touch a row twice.
      const ids = claims.map((c) => c.claim_id);
      if (new Set(ids).size === ids.length) await upsertClaims(profileId, claims);
      else for (const claim of claims) await upsertClaims(profileId, [claim]);
    },
    async deleteClaims(profileId, claimIds) {
      if (claimIds.length === 0) return 0;
      return sql.run('DELETE FROM claims WHERE profile_id = ? AND claim_id = ANY (?)', profileId, [
        ...new Set(claimIds),
      ]);
    },
    async putModifiers(profileId, modifiers) {
      for (const modifier of modifiers) {
        const changed = await sql.run(
          `INSERT INTO modifiers (modifier_id, profile_id, body) VALUES (?, ?, ?)
           ON CONFLICT (modifier_id) DO UPDATE SET body = excluded.body
           WHERE modifiers.profile_id = excluded.profile_id`,
          modifier.modifier_id,
          profileId,
          toJson(modifier),
        );
        if (changed === 0) throw new IdConflictError(modifier.modifier_id, 'modifier');
      }
    },
    async deleteModifiers(profileId, modifierIds) {
      if (modifierIds.length === 0) return 0;
      return sql.run('DELETE FROM modifiers WHERE profile_id = ? AND modifier_id = ANY (?)', profileId, [
        ...new Set(modifierIds),
      ]);
    },
    async deleteProfile(profileId) {
      // Claims, modifiers and proposals go with it (ON DELETE CASCADE); grants and audit stay.
      return (await sql.run('DELETE FROM profiles WHERE profile_id = ?', profileId)) > 0;
    },
    async insertGrant(grant) {
      await sql.run(
        `INSERT INTO grants (${GRANT_COLUMNS}) VALUES (${placeholders(GRANT_COLUMNS)})`,
        ...grantRow(grant),
      );
    },
    async revokeGrant(grantId, at) {
      // FOR UPDATE: the row stays as read until this transaction ends, whatever else writes.
      const current = bodyOf<GrantRecord>(
        await sql.get('SELECT body FROM grants WHERE grant_id = ? FOR UPDATE', grantId),
      );
      if (current === undefined) return undefined;
      const revoked: GrantRecord = { ...current, status: 'revoked', revoked_at: current.revoked_at ?? at };
      await sql.run(
        'UPDATE grants SET status = ?, revoked_at = ?, body = ? WHERE grant_id = ?',
        revoked.status,
        revoked.revoked_at ?? null,
        toJson(revoked),
        grantId,
      );
      return revoked;
    },
    async putClient(client) {
      await sql.run(
        `INSERT INTO clients (client_id, created_at, body) VALUES (?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET created_at = excluded.created_at, body = excluded.body`,
        client.client_id,
        client.created_at,
        toJson(client),
      );
    },
    async insertSigningKey(key) {
      await sql.run(
        'INSERT INTO signing_keys (kid, created_at, body) VALUES (?, ?, ?)',
        key.kid,
        key.created_at,
        toJson(key),
      );
    },
    async putSettingIfAbsent(name, value) {
      await sql.run(
        'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
        name,
        value,
      );
      const stored = await getSetting(name);
      if (stored === undefined) throw new Error(`setting ${name} vanished after insert`);
      return stored;
    },
    async putSetting(name, value) {
      await sql.run(
        'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        name,
        value,
      );
    },
    async deleteSetting(name) {
      return (await sql.run('DELETE FROM settings WHERE name = ?', name)) > 0;
    },
  };
}
