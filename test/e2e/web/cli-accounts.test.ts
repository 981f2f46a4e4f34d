import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { signIn } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { openProvider } from '../../../src/provider.ts';
import { type CliResult, cleanEnv, runCli, show } from '../../support/cli.ts';
import { type TestDatabase, testDatabase } from '../../support/test-database.ts';

// `ppx subject add`, `ppx client add` and the demo login: what the consent page signs in with. The
// commands run as processes on the database under test (PPX_DB, or PPX_DATABASE_URL with
// PPX_TEST_STORE=postgres), as an operator runs them beside the server.

describe('CLI accounts for the web pages', () => {
  let database: TestDatabase;
  let box: { env: NodeJS.ProcessEnv; run(args: string[]): Promise<CliResult> };
  before(async () => {
    database = testDatabase();
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), ...database.env };
    box = { env, run: (args) => runCli(args, env) };
    // An empty database, as `ppx serve` leaves one: these commands refuse to create it.
    const config = loadConfig(database.config, {});
    assert.ok(config.ok);
    await (await openProvider(config.value)).store.close();
  });
  after(() => database.drop());

  async function canSignIn(username: string, password: string): Promise<string | undefined> {
    const config = loadConfig(database.config, {});
    assert.ok(config.ok);
    const deps = await openProvider(config.value);
    try {
      const r = await signIn(deps, username, password);
      return r.ok ? r.value.session.subject_id : undefined;
    } finally {
      await deps.store.close();
    }
  }

  it('subject add creates a login (password by flag or PPX_PASSWORD); clear errors otherwise', async () => {
    const a = await box.run(['subject', 'add', '--username', 'Alice', '--password', 'alice-password-1']);
    assert.equal(a.code, 0, show(a));
    assert.match(a.stdout, /created subject ppx:subject:\S+ \(sign-in name "alice"\)/);
    assert.ok(await canSignIn('alice', 'alice-password-1'));

    box.env['PPX_PASSWORD'] = 'bob-password-12';
    const b = await box.run(['subject', 'add', '--username', 'bob', '--subject', 'did:example:bob']);
    delete box.env['PPX_PASSWORD'];
    assert.equal(b.code, 0, show(b));
    assert.equal(await canSignIn('bob', 'bob-password-12'), 'did:example:bob');

    const taken = await box.run(['subject', 'add', '--username', 'alice', '--password', 'another-password']);
    assert.equal(taken.code, 1, show(taken));
    assert.match(taken.stderr, /already taken/);
    const noPassword = await box.run(['subject', 'add', '--username', 'carol']);
    assert.equal(noPassword.code, 2, show(noPassword));
    assert.match(noPassword.stderr, /give a password/);
    const short = await box.run(['subject', 'add', '--username', 'carol', '--password', 'short']);
    assert.equal(short.code, 1, show(short));
    assert.match(short.stderr, /at least 10 characters/);
    const verb = await box.run(['subject', 'remove', '--username', 'alice']);
    assert.equal(verb.code, 2, show(verb));
  });

  it('client add registers public and confidential clients', async () => {
    const pub = await box.run([
      'client',
      'add',
      '--id',
      'my-app',
      '--name',
      'My App',
      '--redirect-uri',
      'https://app.example/cb',
      '--redirect-uri',
      'http://localhost:3000/cb',
    ]);
    assert.equal(pub.code, 0, show(pub));
    assert.match(
      pub.stdout,
      /public client my-app \("My App"\).*https:\/\/app\.example\/cb, http:\/\/localhost:3000\/cb/,
    );
    const conf = await box.run([
      'client',
      'add',
      '--id',
      'backend',
      '--name',
      'Backend',
      '--redirect-uri',
      'https://backend.example/cb',
      '--confidential',
      '--secret',
      'a-secret-of-enough-length',
    ]);
    assert.equal(conf.code, 0, show(conf));
    const noSecret = await box.run([
      'client',
      'add',
      '--id',
      'x',
      '--name',
      'X',
      '--redirect-uri',
      'https://x.example/cb',
      '--confidential',
    ]);
    assert.equal(noSecret.code, 2, show(noSecret));
    const badUri = await box.run([
      'client',
      'add',
      '--id',
      'x',
      '--name',
      'X',
      '--redirect-uri',
      'not a url',
    ]);
    assert.equal(badUri.code, 2, show(badUri));
  });

  it('client add without --redirect-uri registers a back-channel client (WIRE-NOTES §2.1)', async () => {
    const r = await box.run(['client', 'add', '--id', 'kiosk', '--name', 'Kiosk']);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /public client kiosk \("Kiosk"\) with no redirect URI/);
    assert.match(r.stdout, /\/v1\/consent\/token/);
    const config = loadConfig(database.config, {});
    assert.ok(config.ok);
    const deps = await openProvider(config.value);
    try {
      assert.deepEqual((await deps.store.getClient('kiosk'))?.redirect_uris, []);
    } finally {
      await deps.store.close();
    }
  });

  it('seed --demo creates the demo login once', async () => {
    const first = await box.run(['seed', '--demo']);
    assert.equal(first.code, 0, show(first));
    assert.match(first.stdout, /demo login \(local demo only\): demo \/ demo-password/);
    assert.equal(await canSignIn('demo', 'demo-password'), DEMO_SUBJECT);
    const again = await box.run(['seed', '--demo']);
    assert.equal(again.code, 0, show(again));
    assert.doesNotMatch(again.stdout, /demo login/);
  });
});
