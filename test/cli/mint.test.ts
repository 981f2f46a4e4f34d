import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { openProvider } from '../../src/provider.ts';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const GRANT_ID = /^ppx:grant:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ppx seed / mint', () => {
  let box: CliSandbox;
  before(async () => {
    box = sandbox();
    const r = await box.run(['seed', '--demo']);
    assert.equal(r.code, 0, show(r));
    assert.equal(
      r.stdout,
      'seeded did:example:user-demo-0001 with clients fragrance-demo and travel-demo\n' +
        'demo login (local demo only): demo / demo-password\n',
    );
  });
  after(() => box.cleanup());

  /** Opens the CLI's database in-process to check what the CLI wrote and signed. */
  async function provider() {
    const config = loadConfig({ dbPath: box.db }, {});
    if (!config.ok) throw new Error(config.error.description);
    return openProvider(config.value);
  }

  it('mint subject --json prints an owner token for the demo subject', async () => {
    const r = await box.run(['mint', 'subject', '--json']);
    assert.equal(r.code, 0, show(r));
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out).sort(), ['access_token', 'expires_in', 'subject_id', 'token_type']);
    assert.equal(out.subject_id, 'did:example:user-demo-0001');
    assert.equal(out.token_type, 'Bearer');
    assert.equal(out.expires_in, 3600);
    assert.match(out.access_token, JWT);
    const deps = await provider();
    try {
      const v = await deps.tokens.verify(out.access_token, new Date(), [deps.provider.baseUrl]);
      assert.ok(v.ok, v.ok ? '' : v.error.description);
      assert.deepEqual(v.value.principal, { kind: 'subject', subjectId: 'did:example:user-demo-0001' });
    } finally {
      await deps.store.close();
    }
  });

  it('mint subject without --json prints key=value lines', async () => {
    const r = await box.run(['mint', 'subject', '--ttl', '120']);
    assert.equal(r.code, 0, show(r));
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split('=')[0]),
      ['subject_id', 'access_token', 'token_type', 'expires_in'],
    );
    assert.equal(lines[3], 'expires_in=120');
  });

  it('mint grant --client fragrance-demo --namespaces core,fragrance --keys … --json creates the grant', async () => {
    const r = await box.run([
      'mint',
      'grant',
      '--client',
      'fragrance-demo',
      '--namespaces',
      'core,fragrance',
      '--keys',
      'novelty_tolerance,fragrance.family_preference',
      '--json',
    ]);
    assert.equal(r.code, 0, show(r));
    const out = JSON.parse(r.stdout);
    assert.match(out.grant_id, GRANT_ID);
    assert.match(out.access_token, JWT);
    assert.equal(out.token_type, 'Bearer');
    const days = (Date.parse(out.expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `expires in ${days} days`);

    const deps = await provider();
    try {
      const grant = await deps.store.getGrant(out.grant_id);
      assert.ok(grant);
      assert.equal(grant.grantee_id, 'fragrance-demo');
      assert.equal(grant.subject_id, 'did:example:user-demo-0001');
      assert.equal(grant.status, 'active');
      assert.deepEqual(grant.allowed_namespaces, ['core', 'fragrance']);
      assert.deepEqual(grant.allowed_claim_keys, ['novelty_tolerance', 'fragrance.family_preference']);
      assert.deepEqual(grant.allowed_domains, ['fragrance']);
      assert.deepEqual(grant.allowed_operations, ['read', 'query']);
      assert.equal(grant.cross_domain_transfer, 'deny');
      const v = await deps.tokens.verify(out.access_token, new Date(), [deps.provider.baseUrl]);
      assert.ok(v.ok);
      assert.deepEqual(v.value.principal, {
        kind: 'grant',
        grantId: out.grant_id,
        clientId: 'fragrance-demo',
      });
    } finally {
      await deps.store.close();
    }
  });

  it('mint package takes grants in either spelling and prints child ids (WIRE-NOTES §4)', async () => {
    const grants: string[] = [];
    for (const namespaces of ['core', 'fragrance']) {
      const g = await box.run([
        'mint',
        'grant',
        '--client',
        'fragrance-demo',
        '--namespaces',
        namespaces,
        '--json',
      ]);
      assert.equal(g.code, 0, show(g));
      grants.push(JSON.parse(g.stdout).grant_id);
    }
    const [full, other] = grants as [string, string];
    const child = other.slice('ppx:grant:'.length);
    const r = await box.run(['mint', 'package', '--grant', full, '--grant', child, '--json']);
    assert.equal(r.code, 0, show(r));
    const out = JSON.parse(r.stdout);
    const ids = out.grant_ids.split(',');
    assert.deepEqual(ids, [full.slice('ppx:grant:'.length), child]);
    for (const id of ids) assert.match(id, /^[A-Za-z0-9._~-]+$/);
    assert.match(out.access_token, JWT);
  });

  it('mint grant --client nobody fails with a clear message and exit 1', async () => {
    const r = await box.run(['mint', 'grant', '--client', 'nobody', '--namespaces', 'core']);
    assert.equal(r.code, 1, show(r));
    assert.equal(r.stderr.trim(), 'ppx mint: client "nobody" is not registered');
    assert.equal(r.stdout, '');
  });

  it('mint grant with an unknown namespace fails with exit 1', async () => {
    const r = await box.run(['mint', 'grant', '--client', 'fragrance-demo', '--namespaces', 'weather']);
    assert.equal(r.code, 1, show(r));
    assert.equal(r.stderr.trim(), 'ppx mint: namespace "weather" is not supported by this provider');
  });

  it('mint grant with a key outside its namespaces fails with exit 1', async () => {
    const r = await box.run([
      'mint',
      'grant',
      '--client',
      'fragrance-demo',
      '--namespaces',
      'core',
      '--keys',
      'travel.pace_preference',
    ]);
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /key "travel\.pace_preference" lies outside the grant's namespaces/);
  });

  it('mint grant without --client is a usage error (exit 2)', async () => {
    const r = await box.run(['mint', 'grant', '--namespaces', 'core']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /--client is required for a grant/);
    assert.match(r.stdout, /^ppx mint env/m);
    assert.match(r.stdout, /^ppx mint subject/m);
  });

  it('mint with nothing to mint is a usage error (exit 2)', async () => {
    const r = await box.run(['mint']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /say what to mint: subject, grant, package or env/);
  });

  it('mint --ttl 0 is a usage error (exit 2)', async () => {
    const r = await box.run(['mint', 'subject', '--ttl', '0']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /--ttl must be a positive number of seconds/);
  });
});
