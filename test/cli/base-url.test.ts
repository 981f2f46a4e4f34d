import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { loadConfig } from '../../src/config.ts';
import { openProvider } from '../../src/provider.ts';
import { startServer } from '../../src/server.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';
import { api, freePort } from '../support/provider.ts';

// Tokens are bound to a base URL (`iss`, and `aud` under it). `ppx serve` records the one it
// serves on as the setting `served_base_url`; mint defaults to it and warns when told another,
// and the server says why it refuses a token of another base URL (issue 11, item 2).

const SERVED = 'http://127.0.0.1:18787';

describe('ppx mint and the base URL the server serves on', () => {
  let box: CliSandbox;
  before(async () => {
    box = sandbox();
    assert.equal((await box.run(['seed', '--demo'])).code, 0);
  });
  after(() => box.cleanup());

  async function served(url: string | undefined) {
    const store = await openSqliteStore(box.db);
    try {
      if (url === undefined) await store.deleteSetting('served_base_url');
      else await store.putSetting('served_base_url', url);
    } finally {
      await store.close();
    }
  }

  async function issuer(args: string[]) {
    const r = await box.run(['mint', 'subject', '--json', ...args]);
    assert.equal(r.code, 0, show(r));
    const claims = decodeJwt(JSON.parse(r.stdout).access_token);
    return { iss: claims.iss, aud: claims.aud, stderr: r.stderr };
  }

  it('without a served base URL, mint uses the default, silently', async () => {
    await served(undefined);
    assert.deepEqual(await issuer([]), {
      iss: 'http://127.0.0.1:8787',
      aud: 'http://127.0.0.1:8787',
      stderr: '',
    });
  });

  it('without --base-url or PPX_BASE_URL, mint uses the served one, silently', async () => {
    await served(SERVED);
    assert.deepEqual(await issuer([]), { iss: SERVED, aud: SERVED, stderr: '' });
    const grant = await box.run([
      'mint',
      'grant',
      '--client',
      'fragrance-demo',
      '--namespaces',
      'core',
      '--json',
    ]);
    assert.equal(grant.code, 0, show(grant));
    assert.equal(decodeJwt(JSON.parse(grant.stdout).access_token).iss, SERVED);
  });

  it('the same base URL given explicitly: no warning', async () => {
    await served(SERVED);
    assert.deepEqual(await issuer(['--base-url', `${SERVED}/`]), { iss: SERVED, aud: SERVED, stderr: '' });
  });

  it('another --base-url wins, with one warning line naming both', async () => {
    await served(SERVED);
    const other = 'http://localhost:9000';
    assert.deepEqual(await issuer(['--base-url', other]), {
      iss: other,
      aud: other,
      stderr:
        `ppx mint: warning: --base-url ${other} is not ${SERVED}, the base URL the server last ` +
        'served on; that server will refuse these tokens\n',
    });
  });

  it('another PPX_BASE_URL: the warning names the variable', async () => {
    await served(SERVED);
    box.env['PPX_BASE_URL'] = 'http://localhost:9001';
    try {
      const r = await issuer([]);
      assert.equal(r.iss, 'http://localhost:9001');
      assert.match(
        r.stderr,
        /^ppx mint: warning: PPX_BASE_URL http:\/\/localhost:9001 is not http:\/\/127\.0\.0\.1:18787,/,
      );
      assert.equal(r.stderr.split('\n').length, 2);
    } finally {
      delete box.env['PPX_BASE_URL'];
    }
  });
});

describe('a token of another base URL, over HTTP', () => {
  let box: CliSandbox;
  let base: string;
  let close: () => Promise<void>;
  before(async () => {
    box = sandbox();
    assert.equal((await box.run(['seed', '--demo'])).code, 0);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = loadConfig({ dbPath: box.db, port: String(port), baseUrl: base, rateLimit: '0' }, {});
    assert.ok(config.ok);
    const deps = await openProvider(config.value);
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

  it('is refused with 401 invalid_token "the access token was issued for another base URL"', async () => {
    const args = ['mint', 'grant', '--client', 'fragrance-demo', '--namespaces', 'core', '--json'];
    const other = await box.run([...args, '--base-url', 'http://localhost:1']);
    assert.equal(other.code, 0, show(other));
    const r = await api(base, '/v1/profile/summary', { token: JSON.parse(other.stdout).access_token });
    assert.equal(r.status, 401);
    assert.deepEqual(
      { error: r.json.error, error_description: r.json.error_description },
      { error: 'invalid_token', error_description: 'the access token was issued for another base URL' },
    );
    assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

    // The same grant minted for this server's base URL is read: only the base URL was wrong.
    const right = await box.run([...args, '--base-url', base]);
    const ok = await api(base, '/v1/profile/summary', { token: JSON.parse(right.stdout).access_token });
    assert.equal(ok.status, 200, ok.text);
  });
});
