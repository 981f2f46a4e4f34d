import type { Claim } from '../../model/claim.ts';
import type { ClientRecord } from '../../model/client.ts';
import type { ContextModifier } from '../../model/context-modifier.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { SigningKeyRecord } from '../../model/signing-key.ts';
import { ContentCache } from '../content-cache.ts';
import type { RecordArea, Sync } from '../query-areas.ts';
import { claimChangeFromRow, PROFILE_COLUMNS, profileFromRow } from '../row-mappers.ts';
import { GRANT_COLUMNS, grantRow, placeholders } from '../row-values.ts';
import { body, bodyOf, integer, text, toJson } from '../rows.ts';
import { type ClaimChange, IdConflictError, type ProfileContent } from '../store.ts';
import type { RecordCache } from './record-cache.ts';
import type { StatementCache } from './statement-cache.ts';
import { versionedBodies } from './versioned-bodies.ts';

export interface RecordQueries extends Sync<RecordArea> {
  /** After a commit on this connection: the records it keeps may have changed. */
  forgetRecords(): void;
}

/**
 * Profiles, claims, modifiers, grants, clients, signing keys and settings as synchronous SQL on
 * one connection. A write may be several statements: the store runs it in a transaction or a
 * savepoint, so it applies all-or-nothing. With `records` (only for a connection whose reads see
 * committed data alone), parsed claims, modifiers and claim changes are kept per profile version
 * (store/content-cache.ts), and grants, clients and profile content in `records` (record-cache.ts).
 */
export function recordQueries(sql: StatementCache, records?: RecordCache): RecordQueries {
  const caches = records
    ? {
        claims: new ContentCache<Claim>(),
        modifiers: new ContentCache<ContextModifier>(),
        claimChanges: new ContentCache<ClaimChange>(),
        records,
      }
    : undefined;

  const version = (profileId: string): number | undefined => {
    const row = sql.get('SELECT version FROM profiles WHERE profile_id = ?').get(profileId);
    return row === undefined ? undefined : integer(row, 'version');
  };
  const getProfile = (profileId: string) => {
    const row = sql.get(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE profile_id = ?`).get(profileId);
    return row === undefined ? undefined : profileFromRow(row);
  };

  /** A profile's rows of `table`, through the version-keyed cache when this connection has one. */
  const listContent = <T>(
    profileId: string,
    cache: ContentCache<T> | undefined,
    table: string,
    order: string,
  ): readonly T[] => {
    if (cache === undefined) {
      const rows = sql.get(`SELECT body FROM ${table} WHERE profile_id = ? ORDER BY ${order}`).all(profileId);
      return rows.map((row) => body<T>(row));
    }
    const current = version(profileId);
    if (current === undefined) return [];
    const hit = cache.get(profileId, current);
    if (hit !== undefined) return hit;
    const ordered = order
      .split(', ')
      .map((column) => `t.${column}`)
      .join(', ');
    const loaded = versionedBodies(
      sql
        .get(
          `SELECT p.version AS version, t.body AS body FROM profiles p
           LEFT JOIN ${table} t ON t.profile_id = p.profile_id
           WHERE p.profile_id = ? ORDER BY ${ordered}`,
        )
        .all(profileId),
    );
    if (loaded === undefined) return [];
    return cache.set(
      profileId,
      loaded.version,
      loaded.bodies.map((b) => JSON.parse(b) as T),
    );
  };
  const listClaims = (profileId: string) =>
    listContent<Claim>(profileId, caches?.claims, 'claims', 'namespace, key, claim_id');
  const listModifiers = (profileId: string) =>
    listContent<ContextModifier>(profileId, caches?.modifiers, 'modifiers', 'modifier_id');

  const profileContent = (profileId: string): ProfileContent | undefined => {
    if (caches === undefined) {
      const profile = getProfile(profileId);
      return profile && { profile, claims: listClaims(profileId), modifiers: listModifiers(profileId) };
    }
    // One statement for the profile and its version; the content comes from the caches when they
    // hold that version (a miss reads it, with the version it has then).
    const row = sql
      .get(`SELECT ${PROFILE_COLUMNS}, version FROM profiles WHERE profile_id = ?`)
      .get(profileId);
    if (row === undefined) return undefined;
    const current = integer(row, 'version');
    return {
      profile: profileFromRow(row),
      claims: caches.claims.get(profileId, current) ?? listClaims(profileId),
      modifiers: caches.modifiers.get(profileId, current) ?? listModifiers(profileId),
    };
  };

  const getGrant = (grantId: string): GrantRecord | undefined => {
    const load = () =>
      bodyOf<GrantRecord>(sql.get('SELECT body FROM grants WHERE grant_id = ?').get(grantId));
    return caches === undefined ? load() : caches.records.read(`grant ${grantId}`, load);
  };
  const getSetting = (name: string): string | undefined => {
    const row = sql.get('SELECT value FROM settings WHERE name = ?').get(name);
    return row === undefined ? undefined : text(row, 'value');
  };
  /** Deletes the rows of `table` with the given ids in the profile, each id once: how many went. */
  const deleteOwned = (
    table: 'claims' | 'modifiers',
    idColumn: string,
    profileId: string,
    ids: readonly string[],
  ) => {
    const del = sql.get(`DELETE FROM ${table} WHERE profile_id = ? AND ${idColumn} = ?`);
    let deleted = 0;
    for (const id of new Set(ids)) deleted += Number(del.run(profileId, id).changes);
    return deleted;
  };

  return {
    forgetRecords() {
      caches?.records.clear();
    },

    getProfileBySubject(subjectId) {
      const row = sql.get(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE subject_id = ?`).get(subjectId);
      return row === undefined ? undefined : profileFromRow(row);
    },
    getProfile,
    getProfileContent(profileId) {
      if (caches === undefined) return profileContent(profileId);
      return caches.records.read(`profile ${profileId}`, () => profileContent(profileId));
    },
    listClaims,
    listModifiers,
    listClaimChanges(profileId) {
      const columns = 'c.namespace, c.key, c.domains, c.source_kind, c.review_status, c.changed_at';
      const order = 'ORDER BY c.namespace, c.key, c.domains, c.source_kind, c.review_status';
      if (caches === undefined) {
        return sql
          .get(`SELECT ${columns} FROM claim_changes c WHERE c.profile_id = ? ${order}`)
          .all(profileId)
          .map(claimChangeFromRow);
      }
      // Kept among the records too: a claim write, the only thing that moves these rows (migration
      // 0010's triggers), clears them at its commit like any record, so a request reads the
      // profile's version (a statement, 7 % of an MCP read, which reports freshness) once at most.
      const cache = caches.claimChanges;
      const changes = caches.records.read(`claim changes ${profileId}`, () => {
        // Migration 0010's triggers move these rows only with a claim write, which moves the
        // profile's version too: the version read in the same statement says whether the cached
        // list holds.
        const current = version(profileId);
        if (current === undefined) return [];
        const hit = cache.get(profileId, current);
        if (hit !== undefined) return hit;
        const rows = sql
          .get(
            `SELECT p.version AS version, ${columns} FROM profiles p
             LEFT JOIN claim_changes c ON c.profile_id = p.profile_id
             WHERE p.profile_id = ? ${order}`,
          )
          .all(profileId);
        const first = rows[0];
        if (first === undefined) return [];
        return cache.set(
          profileId,
          integer(first, 'version'),
          rows.filter((row) => row['namespace'] !== null).map(claimChangeFromRow),
        );
      });
      return changes ?? [];
    },
    getGrant,
    listGrantsBySubject(subjectId) {
      return sql
        .get('SELECT body FROM grants WHERE subject_id = ? ORDER BY granted_at DESC, grant_id')
        .all(subjectId)
        .map((row) => body<GrantRecord>(row));
    },
    getClient(clientId) {
      const load = () =>
        bodyOf<ClientRecord>(sql.get('SELECT body FROM clients WHERE client_id = ?').get(clientId));
      // Every token request authenticates its client: a refresh read it once a rotation.
      return caches === undefined ? load() : caches.records.read(`client ${clientId}`, load);
    },
    listClients() {
      return sql
        .get('SELECT body FROM clients ORDER BY client_id')
        .all()
        .map((row) => body<ClientRecord>(row));
    },
    listSigningKeys() {
      return sql
        .get('SELECT body FROM signing_keys ORDER BY created_at DESC, kid DESC')
        .all()
        .map((row) => body<SigningKeyRecord>(row));
    },
    getSetting,
    countProfiles() {
      const row = sql.get('SELECT count(*) AS n FROM profiles').get();
      return row === undefined ? 0 : integer(row, 'n');
    },

    insertProfile(profile) {
      sql
        .get(`INSERT INTO profiles (${PROFILE_COLUMNS}) VALUES (?, ?, ?, ?, ?)`)
        .run(
          profile.profile_id,
          profile.subject_id,
          profile.created_at,
          profile.updated_at,
          profile.default_policy === undefined ? null : toJson(profile.default_policy),
        );
    },
    touchProfile(profileId, updatedAt, defaultPolicy) {
      const result =
        defaultPolicy === undefined
          ? sql.get('UPDATE profiles SET updated_at = ? WHERE profile_id = ?').run(updatedAt, profileId)
          : sql
              .get('UPDATE profiles SET updated_at = ?, default_policy = ? WHERE profile_id = ?')
              .run(updatedAt, toJson(defaultPolicy), profileId);
      return Number(result.changes) > 0;
    },
    putClaims(profileId, claims) {
      // The WHERE on the upsert makes a claim id owned by another profile a no-op, which is then
      // reported: ids are never reused, so that is a bug upstream, not a move between profiles.
      const upsert = sql.get(
        `INSERT INTO claims (claim_id, profile_id, namespace, key, body) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (claim_id) DO UPDATE SET namespace = excluded.namespace, key = excluded.key,
           body = excluded.body
         WHERE claims.profile_id = excluded.profile_id`,
      );
      for (const claim of claims) {
        const result = upsert.run(claim.claim_id, profileId, claim.namespace, claim.key, toJson(claim));
        if (Number(result.changes) === 0) throw new IdConflictError(claim.claim_id, 'claim');
      }
    },
    deleteClaims(profileId, claimIds) {
      return deleteOwned('claims', 'claim_id', profileId, claimIds);
    },
    putModifiers(profileId, modifiers) {
      const upsert = sql.get(
        `INSERT INTO modifiers (modifier_id, profile_id, body) VALUES (?, ?, ?)
         ON CONFLICT (modifier_id) DO UPDATE SET body = excluded.body
         WHERE modifiers.profile_id = excluded.profile_id`,
      );
      for (const modifier of modifiers) {
        const result = upsert.run(modifier.modifier_id, profileId, toJson(modifier));
        if (Number(result.changes) === 0) throw new IdConflictError(modifier.modifier_id, 'modifier');
      }
    },
    deleteModifiers(profileId, modifierIds) {
      return deleteOwned('modifiers', 'modifier_id', profileId, modifierIds);
    },
    deleteProfile(profileId) {
      // Claims and modifiers go with it through ON DELETE CASCADE; grants and audit have no FK.
      return Number(sql.get('DELETE FROM profiles WHERE profile_id = ?').run(profileId).changes) > 0;
    },
    insertGrant(grant) {
      sql
        .get(`INSERT INTO grants (${GRANT_COLUMNS}) VALUES (${placeholders(GRANT_COLUMNS)})`)
        .run(...grantRow(grant));
    },
    revokeGrant(grantId, at) {
      const current = getGrant(grantId);
      if (current === undefined) return undefined;
      const revoked: GrantRecord = { ...current, status: 'revoked', revoked_at: current.revoked_at ?? at };
      sql
        .get('UPDATE grants SET status = ?, revoked_at = ?, body = ? WHERE grant_id = ?')
        .run(revoked.status, revoked.revoked_at ?? null, toJson(revoked), grantId);
      return revoked;
    },
    putClient(client) {
      sql
        .get(
          `INSERT INTO clients (client_id, created_at, body) VALUES (?, ?, ?)
           ON CONFLICT (client_id) DO UPDATE SET created_at = excluded.created_at, body = excluded.body`,
        )
        .run(client.client_id, client.created_at, toJson(client));
    },
    insertSigningKey(key) {
      sql
        .get('INSERT INTO signing_keys (kid, created_at, body) VALUES (?, ?, ?)')
        .run(key.kid, key.created_at, toJson(key));
    },
    putSettingIfAbsent(name, value) {
      sql
        .get('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
        .run(name, value);
      const stored = getSetting(name);
      if (stored === undefined) throw new Error(`setting ${name} vanished after insert`);
      return stored;
    },
    putSetting(name, value) {
      sql
        .get(
          'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        )
        .run(name, value);
    },
    deleteSetting(name) {
      return Number(sql.get('DELETE FROM settings WHERE name = ?').run(name).changes) > 0;
    },
  };
}
