import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { callerForGrant } from '../../../src/operations/callers/caller.ts';
import { openProvider } from '../../../src/provider.ts';
import { assertError } from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { type Watch, watch } from './helpers.ts';

// A grant's expiry is not a write (it is a matter of time), so it is announced by the first
// operation that finds the grant past it: a request under the grant, or the subject's listing.
// Once, across requests, listings and processes; the provider's clock is set, not waited for.

describe('grant_expired, announced once', () => {
  let p: TestProvider;
  let w: Watch;
  let now = Date.now();
  before(async () => {
    p = await startTestProvider({ clock: () => new Date(now) });
    w = await watch(p);
  });
  after(async () => {
    w.close();
    await p.close();
  });

  it('by the first request under the grant, by the listing for another, and never again', async () => {
    const soon = new Date(now + 60_000).toISOString();
    const a = await p.grant({ expires_at: soon });
    const b = await p.grant({ expires_at: soon });
    await w.expect({ kind: 'grant_created' }, { kind: 'grant_created' });
    assert.equal((await api(p.url, '/v1/profile/summary', { token: a.token })).status, 200);
    await w.quiet();

    now += 120_000;
    assertError(await api(p.url, '/v1/profile/summary', { token: a.token }), 401, 'grant_expired');
    const id = a.grant.grant_id;
    await w.expect({ kind: 'grant_expired', ids: { grant_ids: [id] }, grants: [id] });
    assertError(await api(p.url, '/v1/profile/summary', { token: a.token }), 401, 'grant_expired');
    await w.quiet();

    const listing = await api(p.url, '/v1/consent/grants', { token: p.subjectToken });
    assert.equal(listing.status, 200);
    const other = b.grant.grant_id;
    await w.expect({ kind: 'grant_expired', ids: { grant_ids: [other] }, grants: [other] });
    assert.equal((await api(p.url, '/v1/consent/grants', { token: p.subjectToken })).status, 200);
    assertError(
      await api(p.url, '/v1/profile/effective', { token: b.token, body: {} }),
      401,
      'grant_expired',
    );
    await w.quiet();

    // Another process (its own memory, the same database) finds it expired too: the store's mark
    // says it was announced already.
    const config = loadConfig(p.database.config, {});
    assert.ok(config.ok);
    const cli = await openProvider(config.value, () => new Date(now));
    try {
      const r = await callerForGrant(cli, id, a.grant.grantee_id, new Date(now));
      assert.equal(r.ok ? 'ok' : r.error.code, 'grant_expired');
    } finally {
      await cli.store.close();
    }
    await w.quiet();
  });
});
