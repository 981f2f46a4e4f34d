import type { DatabaseSync } from 'node:sqlite';
import type { Claim } from '../../model/claim.ts';
import type { ClientRecord } from '../../model/client.ts';
import type { ContextModifier } from '../../model/context-modifier.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { DefaultPolicy } from '../../model/profile.ts';
import type { ProfileRecord } from '../../model/profile-record.ts';
import type { SigningKeyRecord } from '../../model/signing-key.ts';
import type { ProvenanceKind, ReviewStatus } from '../../model/vocabulary.ts';
import { ContentCache } from '../content-cache.ts';
import { type ClaimChange, IdConflictError, type ProfileContent, type StoreTx } from '../store.ts';
import { A2aTaskQueries } from './a2a-task-queries.ts';
import { RecordCache } from './record-cache.ts';
import { body, integer, profileFromRow, type Row, StatementCache, text, toJson } from './rows.ts';
import { versionedBodies } from './versioned-bodies.ts';

/** The synchronous counterpart of an async interface: same parameters, unwrapped results. */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

const PROFILE_COLUMNS = 'profile_id, subject_id, created_at, updated_at, default_policy';

/**
 * Every store operation as plain synchronous SQL on one connection. Transactions, locking and
 * the async surface are the caller's concern (sqlite-store.ts); a write here is one or more
 * statements that the caller wraps in a transaction or savepoint so it applies all-or-nothing.
 */
export class SqliteQueries extends A2aTaskQueries implements Sync<StoreTx> {
  readonly #sql: StatementCache;
  /** Present only on the read connection (see ContentCache). */
  readonly #claims: ContentCache<Claim> | undefined;
  readonly #modifiers: ContentCache<ContextModifier> | undefined;
  readonly #claimChanges: ContentCache<ClaimChange> | undefined;
  readonly #records: RecordCache | undefined;
  constructor(db: DatabaseSync, options: { cacheContent?: boolean } = {}) {
    // Subjects, sessions, grant requests and refresh tokens come from ConsentQueries; the audit log
    // from AuditQueries, which extends it; cross-domain reviews from ReviewQueries, which extends that; proposals and claim history from
    // WritebackQueries, which extends ReviewQueries; the change outbox from ChangeQueries, which
    // extends WritebackQueries; A2A tasks from A2aTaskQueries, which extends ChangeQueries.
    const sql = new StatementCache(db);
    super(sql);
    this.#sql = sql;
    if (options.cacheContent) {
      this.#claims = new ContentCache();
      this.#modifiers = new ContentCache();
      this.#claimChanges = new ContentCache();
      this.#records = new RecordCache(sql);
    }
  }

  #version(profileId: string): number | undefined {
    const row = this.#sql.get('SELECT version FROM profiles WHERE profile_id = ?').get(profileId);
    return row === undefined ? undefined : integer(row, 'version');
  }

  getProfileBySubject(subjectId: string): ProfileRecord | undefined {
    const row = this.#sql.get(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE subject_id = ?`).get(subjectId);
    return row === undefined ? undefined : profileFromRow(row);
  }

  getProfile(profileId: string): ProfileRecord | undefined {
    const row = this.#sql.get(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE profile_id = ?`).get(profileId);
    return row === undefined ? undefined : profileFromRow(row);
  }

  getProfileContent(profileId: string): ProfileContent | undefined {
    const records = this.#records;
    if (records === undefined) return this.#profileContent(profileId);
    return records.read(`profile ${profileId}`, () => this.#profileContent(profileId));
  }

  #profileContent(profileId: string): ProfileContent | undefined {
    if (this.#claims === undefined || this.#modifiers === undefined) {
      const profile = this.getProfile(profileId);
      return (
        profile && { profile, claims: this.listClaims(profileId), modifiers: this.listModifiers(profileId) }
      );
    }
    // One statement for the profile and its version; the content comes from the caches when they
    // hold that version (a miss reads it, with the version it has then).
    const row = this.#sql
      .get(`SELECT ${PROFILE_COLUMNS}, version FROM profiles WHERE profile_id = ?`)
      .get(profileId);
    if (row === undefined) return undefined;
    const version = integer(row, 'version');
    return {
      profile: profileFromRow(row),
      claims: this.#claims.get(profileId, version) ?? this.listClaims(profileId),
      modifiers: this.#modifiers.get(profileId, version) ?? this.listModifiers(profileId),
    };
  }

  listClaims(profileId: string): readonly Claim[] {
    return this.#listContent<Claim>(profileId, this.#claims, 'claims', 'namespace, key, claim_id');
  }

  listModifiers(profileId: string): readonly ContextModifier[] {
    return this.#listContent<ContextModifier>(profileId, this.#modifiers, 'modifiers', 'modifier_id');
  }

  listClaimChanges(profileId: string): readonly ClaimChange[] {
    const columns = 'c.namespace, c.key, c.domains, c.source_kind, c.review_status, c.changed_at';
    const order = 'ORDER BY c.namespace, c.key, c.domains, c.source_kind, c.review_status';
    const cache = this.#claimChanges;
    if (cache === undefined) {
      return this.#sql
        .get(`SELECT ${columns} FROM claim_changes c WHERE c.profile_id = ? ${order}`)
        .all(profileId)
        .map(claimChangeFromRow);
    }
    // Migration 0010's triggers move these rows only with a claim write, which moves the profile's
    // version too: the version read in the same statement says whether the cached list holds.
    const version = this.#version(profileId);
    if (version === undefined) return [];
    const hit = cache.get(profileId, version);
    if (hit !== undefined) return hit;
    const rows = this.#sql
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
  }

  /** A profile's rows of `table`, through the version-keyed cache when this connection has one. */
  #listContent<T>(
    profileId: string,
    cache: ContentCache<T> | undefined,
    table: string,
    order: string,
  ): readonly T[] {
    if (cache === undefined) {
      const rows = this.#sql
        .get(`SELECT body FROM ${table} WHERE profile_id = ? ORDER BY ${order}`)
        .all(profileId);
      return rows.map((row) => body<T>(row));
    }
    const version = this.#version(profileId);
    if (version === undefined) return [];
    const hit = cache.get(profileId, version);
    if (hit !== undefined) return hit;
    const ordered = order
      .split(', ')
      .map((column) => `t.${column}`)
      .join(', ');
    const loaded = versionedBodies(
      this.#sql
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
  }

  getGrant(grantId: string): GrantRecord | undefined {
    const load = () => {
      const row = this.#sql.get('SELECT body FROM grants WHERE grant_id = ?').get(grantId);
      return row === undefined ? undefined : body<GrantRecord>(row);
    };
    return this.#records === undefined ? load() : this.#records.read(`grant ${grantId}`, load);
  }

  /** After a commit on this connection: the records it keeps may have changed. */
  forgetRecords(): void {
    this.#records?.clear();
  }

  listGrantsBySubject(subjectId: string): GrantRecord[] {
    const rows = this.#sql
      .get('SELECT body FROM grants WHERE subject_id = ? ORDER BY granted_at DESC, grant_id')
      .all(subjectId);
    return rows.map((row) => body<GrantRecord>(row));
  }

  getClient(clientId: string): ClientRecord | undefined {
    const row = this.#sql.get('SELECT body FROM clients WHERE client_id = ?').get(clientId);
    return row === undefined ? undefined : body<ClientRecord>(row);
  }

  listClients(): ClientRecord[] {
    return this.#sql
      .get('SELECT body FROM clients ORDER BY client_id')
      .all()
      .map((row) => body<ClientRecord>(row));
  }

  listSigningKeys(): SigningKeyRecord[] {
    return this.#sql
      .get('SELECT body FROM signing_keys ORDER BY created_at DESC, kid DESC')
      .all()
      .map((row) => body<SigningKeyRecord>(row));
  }

  getSetting(name: string): string | undefined {
    const row = this.#sql.get('SELECT value FROM settings WHERE name = ?').get(name);
    return row === undefined ? undefined : text(row, 'value');
  }

  countProfiles(): number {
    const row = this.#sql.get('SELECT count(*) AS n FROM profiles').get();
    return row === undefined ? 0 : integer(row, 'n');
  }

  insertProfile(profile: ProfileRecord): void {
    this.#sql
      .get(`INSERT INTO profiles (${PROFILE_COLUMNS}) VALUES (?, ?, ?, ?, ?)`)
      .run(
        profile.profile_id,
        profile.subject_id,
        profile.created_at,
        profile.updated_at,
        profile.default_policy === undefined ? null : toJson(profile.default_policy),
      );
  }

  touchProfile(profileId: string, updatedAt: string, defaultPolicy?: DefaultPolicy): boolean {
    const result =
      defaultPolicy === undefined
        ? this.#sql.get('UPDATE profiles SET updated_at = ? WHERE profile_id = ?').run(updatedAt, profileId)
        : this.#sql
            .get('UPDATE profiles SET updated_at = ?, default_policy = ? WHERE profile_id = ?')
            .run(updatedAt, toJson(defaultPolicy), profileId);
    return Number(result.changes) > 0;
  }

  putClaims(profileId: string, claims: readonly Claim[]): void {
    // The WHERE on the upsert makes a claim id owned by another profile a no-op, which is then
    // reported: ids are never reused, so that is a bug upstream, not a move between profiles.
    const upsert = this.#sql.get(
      `INSERT INTO claims (claim_id, profile_id, namespace, key, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (claim_id) DO UPDATE SET namespace = excluded.namespace, key = excluded.key,
         body = excluded.body
       WHERE claims.profile_id = excluded.profile_id`,
    );
    for (const claim of claims) {
      const result = upsert.run(claim.claim_id, profileId, claim.namespace, claim.key, toJson(claim));
      if (Number(result.changes) === 0) {
        throw new IdConflictError(claim.claim_id, 'claim');
      }
    }
  }

  deleteClaims(profileId: string, claimIds: readonly string[]): number {
    const del = this.#sql.get('DELETE FROM claims WHERE profile_id = ? AND claim_id = ?');
    let deleted = 0;
    for (const id of new Set(claimIds)) deleted += Number(del.run(profileId, id).changes);
    return deleted;
  }

  putModifiers(profileId: string, modifiers: readonly ContextModifier[]): void {
    const upsert = this.#sql.get(
      `INSERT INTO modifiers (modifier_id, profile_id, body) VALUES (?, ?, ?)
       ON CONFLICT (modifier_id) DO UPDATE SET body = excluded.body
       WHERE modifiers.profile_id = excluded.profile_id`,
    );
    for (const modifier of modifiers) {
      const result = upsert.run(modifier.modifier_id, profileId, toJson(modifier));
      if (Number(result.changes) === 0) {
        throw new IdConflictError(modifier.modifier_id, 'modifier');
      }
    }
  }

  deleteProfile(profileId: string): boolean {
    // Claims and modifiers go with it through ON DELETE CASCADE; grants and audit have no FK.
    const result = this.#sql.get('DELETE FROM profiles WHERE profile_id = ?').run(profileId);
    return Number(result.changes) > 0;
  }

  insertGrant(grant: GrantRecord): void {
    this.#sql
      .get(
        `INSERT INTO grants (grant_id, subject_id, grantee_id, profile_id, status, granted_at, expires_at,
           revoked_at, access_mode, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        grant.grant_id,
        grant.subject_id,
        grant.grantee_id,
        grant.profile_id,
        grant.status,
        grant.granted_at,
        grant.expires_at ?? null,
        grant.revoked_at ?? null,
        grant.access_mode,
        toJson(grant),
      );
  }

  revokeGrant(grantId: string, at: string): GrantRecord | undefined {
    const current = this.getGrant(grantId);
    if (current === undefined) return undefined;
    const revoked: GrantRecord = { ...current, status: 'revoked', revoked_at: current.revoked_at ?? at };
    this.#sql
      .get('UPDATE grants SET status = ?, revoked_at = ?, body = ? WHERE grant_id = ?')
      .run(revoked.status, revoked.revoked_at ?? null, toJson(revoked), grantId);
    return revoked;
  }

  putClient(client: ClientRecord): void {
    this.#sql
      .get(
        `INSERT INTO clients (client_id, created_at, body) VALUES (?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET created_at = excluded.created_at, body = excluded.body`,
      )
      .run(client.client_id, client.created_at, toJson(client));
  }

  insertSigningKey(key: SigningKeyRecord): void {
    this.#sql
      .get('INSERT INTO signing_keys (kid, created_at, body) VALUES (?, ?, ?)')
      .run(key.kid, key.created_at, toJson(key));
  }

  putSettingIfAbsent(name: string, value: string): string {
    this.#sql
      .get('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, value);
    const stored = this.getSetting(name);
    if (stored === undefined) throw new Error(`setting ${name} vanished after insert`);
    return stored;
  }

  putSetting(name: string, value: string): void {
    this.#sql
      .get(
        'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      )
      .run(name, value);
  }

  deleteSetting(name: string): boolean {
    return Number(this.#sql.get('DELETE FROM settings WHERE name = ?').run(name).changes) > 0;
  }
}

/** A claim_changes row as the shape it stands for (migration 0010: '' for no domains, no review). */
function claimChangeFromRow(row: Row): ClaimChange {
  const domains = text(row, 'domains');
  const status = text(row, 'review_status');
  return {
    namespace: text(row, 'namespace'),
    key: text(row, 'key'),
    ...(domains !== '' ? { applicability: { domains: JSON.parse(domains) as string[] } } : {}),
    source: { kind: text(row, 'source_kind') as ProvenanceKind },
    ...(status !== '' ? { review: { review_status: status as ReviewStatus } } : {}),
    changed_at: text(row, 'changed_at'),
  };
}
