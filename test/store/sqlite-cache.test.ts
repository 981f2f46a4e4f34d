import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { minimalClaim, modifier, profileRecord } from '../support/store-records.ts';

// The read connection keeps parsed claims per profile version (content-cache.ts). These tests
// write through a second store on the same file, as the CLI does beside a running server, and
// check that the first store never serves what the file no longer holds.
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
});
