import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  at,
  auditEvent,
  gate,
  grant,
  minimalClaim,
  modifier,
  profileRecord,
  publicClient,
  refreshChain,
  refreshToken,
  tokenFamily,
} from '../support/store-records.ts';

// The read connection keeps parsed claims per profile version (content-cache.ts), and records
// (grants, clients, token families, profile content) until they may have changed
// (record-cache.ts). These tests write through this store or a second store on the same file, as
// the CLI does beside a running server, and check that the first store never serves what the
// file no longer holds.
describe('sqlite read cache', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ppx-cache-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('sees claims and modifiers written by another connection on its next read', async () => {
    const path = join(dir, 'a.db');
    const server = await openSqliteStore(path);
    const cli = await openSqliteStore(path);
    try {
      const profile = profileRecord();
      await cli.insertProfile(profile);
      const a = minimalClaim({ claim_id: 'ppx:claim:a', key: 'novelty_tolerance', value: 0.1 });
      await cli.putClaims(profile.profile_id, [a]);
      assert.deepEqual(await server.listClaims(profile.profile_id), [a]);

      const changed = { ...a, value: 0.9 };
      await cli.putClaims(profile.profile_id, [changed]);
      assert.deepEqual(await server.listClaims(profile.profile_id), [changed]);

      await cli.putModifiers(profile.profile_id, [modifier({ modifier_id: 'ppx:modifier:m1' })]);
      assert.equal((await server.listModifiers(profile.profile_id)).length, 1);

      await cli.deleteClaims(profile.profile_id, ['ppx:claim:a']);
      assert.deepEqual(await server.listClaims(profile.profile_id), []);
    } finally {
      await cli.close();
      await server.close();
    }
  });

  it('sees claim changes (what freshness reports) written by another connection and by itself', async () => {
    const path = join(dir, 'changes.db');
    const server = await openSqliteStore(path);
    const cli = await openSqliteStore(path);
    try {
      const profile = profileRecord();
      await server.insertProfile(profile);
      const changedKeys = async () =>
        server.freshReads!(async () => (await server.listClaimChanges(profile.profile_id)).map((c) => c.key));
      assert.deepEqual(await changedKeys(), []);
      await cli.putClaims(profile.profile_id, [
        minimalClaim({ claim_id: 'ppx:claim:a', key: 'novelty_tolerance' }),
      ]);
      assert.deepEqual(await changedKeys(), ['novelty_tolerance'], 'another process wrote');
      await server.putClaims(profile.profile_id, [minimalClaim({ claim_id: 'ppx:claim:b', key: 'warmth' })]);
      assert.deepEqual((await changedKeys()).sort(), ['novelty_tolerance', 'warmth'], 'this store wrote');
    } finally {
      await cli.close();
      await server.close();
    }
  });

  it('does not serve an old profile after it is deleted and created again under the same id', async () => {
    const path = join(dir, 'b.db');
    const server = await openSqliteStore(path);
    const cli = await openSqliteStore(path);
    try {
      const profile = profileRecord();
      await cli.insertProfile(profile);
      await cli.putClaims(profile.profile_id, [minimalClaim({ claim_id: 'ppx:claim:old' })]);
      assert.equal((await server.listClaims(profile.profile_id)).length, 1);

      await cli.deleteProfile(profile.profile_id);
      await cli.insertProfile(profile);
      const fresh = minimalClaim({ claim_id: 'ppx:claim:new' });
      await cli.putClaims(profile.profile_id, [fresh]);
      assert.deepEqual(await server.listClaims(profile.profile_id), [fresh]);
    } finally {
      await cli.close();
      await server.close();
    }
  });

  it('hands out frozen claims, so one reader cannot change what another reads', async () => {
    const path = join(dir, 'c.db');
    const store = await openSqliteStore(path);
    try {
      const profile = profileRecord();
      await store.insertProfile(profile);
      await store.putClaims(profile.profile_id, [minimalClaim({ claim_id: 'ppx:claim:f' })]);
      const [claim] = await store.listClaims(profile.profile_id);
      assert.ok(claim);
      assert.throws(() => {
        (claim as { value: unknown }).value = 42;
      }, TypeError);
      assert.notEqual((await store.listClaims(profile.profile_id))[0]?.value, 42);
    } finally {
      await store.close();
    }
  });

  /** A client, a grant of it and a token family over the grant with its current refresh token. */
  async function refreshFamily(store: Awaited<ReturnType<typeof openSqliteStore>>) {
    const client = publicClient();
    await store.putClient(client);
    const g = grant({ grantee_id: client.client_id });
    await store.insertGrant(g);
    const family = tokenFamily({
      client_id: client.client_id,
      subject_id: g.subject_id,
      grant_ids: [g.grant_id],
    });
    await store.insertTokenFamily(family);
    const token = refreshToken({ family_id: family.family_id });
    await store.insertRefreshToken(token);
    return { client, grant: g, family, token };
  }

  it('keeps a client, a family and a grant over a rotation, and reads them anew after a commit that changes them', async () => {
    const store = await openSqliteStore(join(dir, 'd.db'));
    try {
      const { client, grant: g, family, token } = await refreshFamily(store);
      const kept = [
        await store.getClient(client.client_id),
        await store.getTokenFamily(family.family_id),
        await store.getGrant(g.grant_id),
      ];
      // What a refresh commits: the rotation and its audit event, a token kept as a row starting
      // the family's chain, then the chain moving on. The very same records after each.
      await store.transaction(async (tx) => {
        const chain = refreshChain({ family_id: family.family_id });
        assert.equal(await tx.rotateRefreshToken(token.token_hash, chain), true);
        await tx.appendAudit([auditEvent({ subject_id: g.subject_id, action: 'token_refreshed' })]);
      });
      await store.transaction(async (tx) => {
        const times = { issued_at: at(1), expires_at: at(100) };
        assert.equal(await tx.advanceRefreshChain(family.family_id, 0, times), true);
        await tx.appendAudit([auditEvent({ subject_id: g.subject_id, action: 'token_refreshed' })]);
      });
      assert.equal(await store.getClient(client.client_id), kept[0]);
      assert.equal(await store.getTokenFamily(family.family_id), kept[1]);
      assert.equal(await store.getGrant(g.grant_id), kept[2]);

      // A revocation in a transaction (a reuse ending the family and its grant): read anew.
      await store.transaction(async (tx) => {
        await tx.revokeTokenFamily(family.family_id, at(5), 'token_reuse');
        await tx.revokeGrant(g.grant_id, at(5));
      });
      assert.equal((await store.getTokenFamily(family.family_id))?.status, 'revoked');
      assert.equal((await store.getGrant(g.grant_id))?.status, 'revoked');
      // A client changed on its own (an autocommit write): read anew too.
      await store.putClient({ ...client, name: 'Renamed' });
      assert.equal((await store.getClient(client.client_id))?.name, 'Renamed');
    } finally {
      await store.close();
    }
  });

  it('keeps a grant and a profile over an A2A task save and trim (what every blocking SendMessage commits)', async () => {
    const store = await openSqliteStore(join(dir, 'd2.db'));
    try {
      const profile = profileRecord();
      await store.insertProfile(profile);
      const g = grant({ profile_id: profile.profile_id, subject_id: profile.subject_id });
      await store.insertGrant(g);
      const kept = [await store.getGrant(g.grant_id), await store.getProfileContent(profile.profile_id)];
      const body = JSON.stringify({ id: 't1', artifacts: [] });
      const at0 = at(0);
      const task = { task_id: 't1', owner: g.grant_id, context_id: 'c1', state: 'TASK_STATE_COMPLETED' };
      await store.transaction(
        async (tx) => {
          await tx.putA2aTask({ ...task, created_at: at0, updated_at: at0, body });
          await tx.trimA2aTasksOf(g.grant_id, { tasks: 1, bytes: 1_000_000 }, 't1');
        },
        { subject: g.subject_id, small: true },
      );
      assert.equal(await store.getGrant(g.grant_id), kept[0]);
      assert.equal(await store.getProfileContent(profile.profile_id), kept[1]);
      // The grant revoked in the next transaction: read anew.
      await store.transaction(async (tx) => {
        await tx.revokeGrant(g.grant_id, at(5));
      });
      assert.equal((await store.getGrant(g.grant_id))?.status, 'revoked');
    } finally {
      await store.close();
    }
  });

  it('sees a family, a grant and a client changed by another connection at its next read', async () => {
    const path = join(dir, 'e.db');
    const server = await openSqliteStore(path);
    const cli = await openSqliteStore(path);
    try {
      const { client, grant: g, family } = await refreshFamily(server);
      assert.equal((await server.getTokenFamily(family.family_id))?.status, 'active');
      assert.equal((await server.getGrant(g.grant_id))?.status, 'active');
      assert.equal((await server.getClient(client.client_id))?.name, client.name);
      await cli.revokeTokenFamily(family.family_id, at(5), 'client_revoked');
      await cli.revokeGrant(g.grant_id, at(5));
      await cli.putClient({ ...client, name: 'Renamed elsewhere' });
      assert.equal((await server.getTokenFamily(family.family_id))?.status, 'revoked');
      assert.equal((await server.getGrant(g.grant_id))?.status, 'revoked');
      assert.equal((await server.getClient(client.client_id))?.name, 'Renamed elsewhere');
    } finally {
      await cli.close();
      await server.close();
    }
  });

  it('in a request (freshReads): checks once, yet sees what another connection committed before it began, and its own commits', async () => {
    const path = join(dir, 'f.db');
    const server = await openSqliteStore(path);
    const cli = await openSqliteStore(path);
    const fresh = server.freshReads;
    assert.ok(fresh, 'a SQLite store checks its caches once a request');
    try {
      const { grant: g, family } = await refreshFamily(server);
      assert.equal((await server.getGrant(g.grant_id))?.status, 'active');
      // Revoked through another connection, then a request begins: it sees the revocation.
      await cli.revokeGrant(g.grant_id, at(5));
      await fresh(async () => {
        assert.equal((await server.getGrant(g.grant_id))?.status, 'revoked');
        assert.equal((await server.getTokenFamily(family.family_id))?.status, 'active');
        // This process's own commit within the request is seen at its next read, on the write
        // connection's cache and on the read connection's (used while a transaction is open).
        const readOnReader = async () => {
          const open = gate();
          const holding = server.transaction(() => open.wait);
          await new Promise((resolve) => setImmediate(resolve));
          try {
            return await server.getTokenFamily(family.family_id);
          } finally {
            open.open();
            await holding;
          }
        };
        assert.equal((await readOnReader())?.status, 'active');
        await server.transaction((tx) => tx.revokeTokenFamily(family.family_id, at(6), 'token_reuse'));
        assert.equal((await server.getTokenFamily(family.family_id))?.status, 'revoked');
        assert.equal((await readOnReader())?.status, 'revoked');
      });
    } finally {
      await cli.close();
      await server.close();
    }
  });

  it('requests arriving in one turn: the first checks at once, the later ones together, each after it arrived', async () => {
    const path = join(dir, 'turn.db');
    const server = await openSqliteStore(path);
    const fresh = server.freshReads!;
    const other = new DatabaseSync(path);
    try {
      const { grant: g } = await refreshFamily(server);
      await fresh(async () => assert.equal((await server.getGrant(g.grant_id))?.status, 'active'));
      const statusIn = () => fresh(async () => (await server.getGrant(g.grant_id))?.status);
      // In one turn of the event loop: a request arrives and reads, another process revokes the
      // grant (a commit of its own), and a second request arrives.
      let turnEnded = false;
      setImmediate(() => {
        turnEnded = true;
      });
      assert.equal(await statusIn(), 'active');
      other
        .prepare(
          "UPDATE grants SET status = 'revoked', revoked_at = ?1, body = json_set(body, '$.status', 'revoked', '$.revoked_at', ?1) WHERE grant_id = ?2",
        )
        .run(at(7), g.grant_id);
      assert.equal(turnEnded, false, 'the scene is as meant: all of it within one turn');
      assert.equal(await statusIn(), 'revoked', 'a request that arrived after the commit sees it');
    } finally {
      other.close();
      await server.close();
    }
  });

  it('requests arriving in one turn each run in their own async context', async () => {
    const server = await openSqliteStore(join(dir, 'contexts.db'));
    const fresh = server.freshReads!;
    const request = new AsyncLocalStorage<string>();
    try {
      // Three requests in one turn: the first starts at once, the others at the turn's end.
      const seen = await Promise.all(
        ['a', 'b', 'c'].map((name) =>
          request.run(name, () =>
            fresh(async () => {
              await server.getProfile('ppx:profile:none');
              return request.getStore();
            }),
          ),
        ),
      );
      assert.deepEqual(seen, ['a', 'b', 'c']);
    } finally {
      await server.close();
    }
  });
});
