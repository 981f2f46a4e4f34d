import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createGrant } from '../../src/operations/grants/consent-grants.ts';
import { DEMO_SUBJECT } from '../../src/operations/seed/demo-profile.ts';
import { issueGrantToken, issueSubjectToken } from '../../src/operations/tokens/issue-tokens.ts';
import { openProvider } from '../../src/provider.ts';
import { api, freePort } from '../support/provider.ts';
import { killHard, serveProcess } from '../support/serve-process.ts';
import { testDatabase } from '../support/test-database.ts';

// On either store (PPX_TEST_STORE): `ppx serve` on the SQLite file or in the PostgreSQL schema,
// killed, and started again on the same database.

describe('nothing the server accepted is lost when it is killed', () => {
  const database = testDatabase();
  after(() => database.drop());

  it('a revocation and the audit trail survive SIGKILL and a restart', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let server = await serveProcess(database.cliArgs, port, base);

    // The CLI and the server share the store, as an operator's `ppx mint` would.
    const config = loadConfig({ ...database.config, baseUrl: base }, {});
    assert.ok(config.ok);
    const deps = await openProvider(config.value);
    const grant = await createGrant(
      deps,
      {
        subject_id: DEMO_SUBJECT,
        client_id: 'travel-demo',
        purposes: ['recommendation'],
        allowed_domains: ['travel'],
        allowed_namespaces: ['core', 'travel'],
        allowed_operations: ['read'],
      },
      'operator',
    );
    assert.ok(grant.ok);
    const token = (await issueGrantToken(deps, grant.value)).access_token;
    const owner = (await issueSubjectToken(deps, DEMO_SUBJECT)).access_token;
    await deps.store.close();

    assert.equal((await api(base, '/v1/profile/effective', { token, body: {} })).status, 200);
    const revoked = await api(base, '/v1/consent/revoke', {
      token: owner,
      body: { grant_id: grant.value.grant_id },
    });
    assert.equal(revoked.status, 200);
    await killHard(server);

    server = await serveProcess(database.cliArgs, port, base);
    try {
      const after = await api(base, '/v1/profile/effective', { token, body: {} });
      assert.equal(after.status, 401);
      assert.equal(after.json.error, 'grant_revoked');
      const audit = await api(base, `/v1/audit/events?grant_id=${encodeURIComponent(grant.value.grant_id)}`, {
        token: owner,
      });
      assert.equal(audit.status, 200);
      const actions = audit.json.events.map((e: { action: string }) => e.action);
      // The read refused after the restart is in the trail too (a revoked grant's refused call is
      // logged for its person: docs/web-app.md, "The activity log").
      assert.deepEqual(actions, ['grant_created', 'effective', 'revoke', 'denied']);
    } finally {
      await killHard(server);
    }
  });
});
