import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { Deps } from '../../src/operations/deps.ts';
import { openProvider } from '../../src/provider.ts';
import { startServer } from '../../src/server.ts';
import { type CliSandbox, sandbox } from '../support/cli.ts';
import { api, freePort } from '../support/provider.ts';

/** Parses `export NAME='value'` lines as a shell would. */
function parseExports(stdout: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of stdout.trim().split('\n')) {
    const m = /^export ([A-Z_]+)='(.*)'$/.exec(line);
    assert.ok(m, `not an export line: ${line}`);
    env[m[1]!] = m[2]!.replaceAll(`'\\''`, "'");
  }
  return env;
}

describe('ppx mint env (conformance suite variables)', () => {
  let box: CliSandbox;
  let base: string;
  let deps: Deps;
  let close: () => Promise<void>;

  before(async () => {
    box = sandbox();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    assert.equal((await box.run(['seed', '--demo'])).code, 0);
    const config = loadConfig({ dbPath: box.db, port: String(port), baseUrl: base, rateLimit: '0' }, {});
    assert.ok(config.ok);
    deps = await openProvider(config.value);
    const server = await startServer(deps, config.value, () => undefined);
    close = async () => {
      await server.close();
      await deps.store.close();
    };
  });
  after(async () => {
    await close();
    box.cleanup();
  });

  it('prints every variable, with tokens that behave as their names say', async () => {
    const r = await box.run(['mint', 'env', '--base-url', base]);
    assert.equal(r.code, 0, r.stderr);
    const env = parseExports(r.stdout);
    assert.deepEqual(Object.keys(env).sort(), [
      'PPX_CLIENT_ID',
      'PPX_DENY_CROSSDOMAIN_TOKEN',
      'PPX_EXPIRED_TOKEN',
      'PPX_FORBIDDEN_WRITEBACK_TOKEN',
      'PPX_PROVIDER_TOKEN',
      'PPX_PROVIDER_URL',
      'PPX_REVOCABLE_GRANT_ID',
      'PPX_REVOCABLE_TOKEN',
      'PPX_REVOKE_TOKEN',
      'PPX_SUBJECT_ID',
      'PPX_USER_TOKEN',
    ]);
    assert.equal(env['PPX_PROVIDER_URL'], base);
    assert.equal(env['PPX_CLIENT_ID'], 'fragrance-demo');
    assert.equal(env['PPX_SUBJECT_ID'], 'did:example:user-demo-0001');

    const main = await api(base, '/v1/consent/grants', { token: env['PPX_PROVIDER_TOKEN']! });
    assert.equal(main.status, 200);
    const grant = main.json.grants[0];
    assert.deepEqual(grant.allowed_namespaces, ['core', 'fragrance']);
    assert.deepEqual(grant.allowed_operations, ['read', 'query', 'propose_update']);
    assert.ok(grant.allowed_claim_keys.includes('fragrance.projection_tolerance'));
    assert.ok(grant.allowed_claim_keys.some((k: string) => !k.includes('.')));
    assert.equal(grant.writeback_policy, 'review_required');

    const expired = await api(base, '/v1/profile/summary', { token: env['PPX_EXPIRED_TOKEN']! });
    assert.equal(expired.status, 401);
    assert.equal(expired.json.error, 'grant_expired');

    const cross = await api(base, '/v1/profile/effective', {
      token: env['PPX_DENY_CROSSDOMAIN_TOKEN']!,
      body: { requested_domain: 'travel' },
    });
    assert.equal(cross.status, 403);
    assert.equal(cross.json.error, 'cross_domain_denied');

    const forbidden = await api(base, '/v1/consent/grants', { token: env['PPX_FORBIDDEN_WRITEBACK_TOKEN']! });
    assert.equal(forbidden.json.grants[0].writeback_policy, 'forbidden');

    assert.equal(
      (await api(base, '/v1/profile/summary', { token: env['PPX_REVOCABLE_TOKEN']! })).status,
      200,
    );
    const revoke = await api(base, '/v1/consent/revoke', {
      token: env['PPX_REVOKE_TOKEN']!,
      body: { grant_id: env['PPX_REVOCABLE_GRANT_ID'] },
    });
    assert.equal(revoke.status, 200);
    const after = await api(base, '/v1/profile/summary', { token: env['PPX_REVOCABLE_TOKEN']! });
    assert.equal(after.status, 401);
    assert.equal(after.json.error, 'grant_revoked');

    const own = await api(base, '/v1/consent/grants', { token: env['PPX_USER_TOKEN']! });
    assert.equal(own.status, 200);
    assert.ok(own.json.grants.length >= 5);
  });

  it('mints fresh grants on every run', async () => {
    const a = parseExports((await box.run(['mint', 'env', '--base-url', base])).stdout);
    const b = parseExports((await box.run(['mint', 'env', '--base-url', base])).stdout);
    assert.notEqual(a['PPX_REVOCABLE_GRANT_ID'], b['PPX_REVOCABLE_GRANT_ID']);
    assert.notEqual(a['PPX_PROVIDER_TOKEN'], b['PPX_PROVIDER_TOKEN']);
  });

  it('explains what to do when the demo is not seeded', async () => {
    const empty = sandbox();
    try {
      const r = await empty.run(['mint', 'env']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /ppx seed --demo/);
    } finally {
      empty.cleanup();
    }
  });
});
