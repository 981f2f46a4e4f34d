import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PostgresStore } from '../../../src/store/postgres/postgres-store.ts';
import {
  dropSchemas,
  postgresUnreachable,
  schemaName,
  TEST_DATABASE_URL,
  terminateBackend,
  until,
} from '../../support/postgres.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';

// Two instances on one PostgreSQL database keep grants, clients, settings and profiles in memory,
// dropped by the notices every commit sends (issue 23, item 3). A notice can be missed only while
// an instance's listening connection is down, so then it keeps nothing, and drops all when it
// listens again. Here the connection is ended between a revocation and the next read, and before
// a revocation: the revoked grant fails the very next request either way.

const reason = await postgresUnreachable();
const schemas: string[] = [];

describe('an instance whose listening connection drops', skipWhen(reason), () => {
  let a: TestProvider;
  let b: TestProvider;
  let bStore: PostgresStore;
  before(async () => {
    const shared = {
      postgres: { url: TEST_DATABASE_URL, schema: schemaName('drop', schemas) },
      env: { PPX_BASE_URL: 'http://ppx.listener-drop.test' },
    };
    a = await startTestProvider(shared);
    b = await startTestProvider(shared);
    bStore = b.store as PostgresStore;
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await dropSchemas(schemas);
  });

  const read = (p: TestProvider, token: string) => api(p.url, '/v1/profile/effective', { token, body: {} });
  const revoke = (grantId: string) =>
    api(a.url, '/v1/consent/revoke', { token: a.subjectToken, body: { grant_id: grantId } });

  it('ended between a revocation and the next read: the read fails', async () => {
    await until(() => bStore.listenerPid() !== undefined);
    const g = await a.grant();
    assert.equal((await read(b, g.token)).status, 200);
    assert.equal((await read(b, g.token)).status, 200, 'the grant is kept in memory now');
    assert.equal((await revoke(g.grant.grant_id)).status, 200);
    await terminateBackend(bStore.listenerPid()!);
    const next = await read(b, g.token);
    assert.equal(next.status, 401, next.text);
  });

  it('ended before a revocation: the instance reads the database meanwhile, and keeps nothing stale after', async () => {
    await until(() => bStore.listenerPid() !== undefined);
    const g = await a.grant();
    assert.equal((await read(b, g.token)).status, 200);
    await terminateBackend(bStore.listenerPid()!);
    await until(() => bStore.listenerPid() === undefined);
    assert.equal((await revoke(g.grant.grant_id)).status, 200);
    assert.equal((await read(b, g.token)).status, 401);
    await until(() => bStore.listenerPid() !== undefined);
    assert.equal((await read(b, g.token)).status, 401);
    // Listening again, it keeps and drops as before.
    const h = await a.grant();
    assert.equal((await read(b, h.token)).status, 200);
    assert.equal((await revoke(h.grant.grant_id)).status, 200);
    assert.equal((await read(b, h.token)).status, 401);
  });
});
