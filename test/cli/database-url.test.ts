import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { cleanEnv, runCli, sandbox, show } from '../support/cli.ts';
import { postgresUnreachable } from '../support/postgres.ts';
import { skipWhen } from '../support/skip.ts';

// A PostgreSQL URL the provider cannot use is said in words, exit 1, never pg's stack (issue 22
// item 17: `ppx serve --database-url postgres://127.0.0.1:5432/db` with USER unset died with "no
// PostgreSQL user name specified in startup packet" and a stack).

/** The environment of a shell where pg finds no user name of its own. */
function withoutUser(): NodeJS.ProcessEnv {
  const env = cleanEnv();
  delete env['USER'];
  delete env['PGUSER'];
  return env;
}

function assertSaid(r: Awaited<ReturnType<typeof runCli>>, cmd: string, words: string): void {
  assert.equal(r.code, 1, show(r));
  assert.equal(r.stderr, `ppx ${cmd}: ${words}\n`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace');
  assert.equal(r.stdout, '');
}

describe('a PostgreSQL URL that cannot be used', () => {
  const noUser =
    'the database URL names no user, and neither PGUSER nor USER is set: put one in the URL, as in postgres://USER@127.0.0.1:5432/DATABASE';

  it('no user in the URL and none in the environment: serve names the missing part', async () => {
    const r = await runCli(
      ['serve', '--port', '0', '--database-url', 'postgres://127.0.0.1:5432/db'],
      withoutUser(),
    );
    assertSaid(r, 'serve', noUser);
  });

  it('the same for a command that opens the store', async () => {
    const r = await runCli(
      ['mint', 'subject', '--database-url', 'postgres://127.0.0.1:5432/db'],
      withoutUser(),
    );
    assertSaid(r, 'mint', noUser);
  });

  it('the same for ppx migrate', async () => {
    const box = sandbox();
    try {
      writeFileSync(box.db, '');
      const r = await runCli(
        ['migrate', '--from', box.db, '--to', 'postgres://127.0.0.1:5432/db'],
        withoutUser(),
      );
      assertSaid(r, 'migrate', noUser);
    } finally {
      box.cleanup();
    }
  });

  it('nothing answering at the host and port', async () => {
    const r = await runCli(
      ['serve', '--port', '0', '--database-url', 'postgres://someone:secret@127.0.0.1:1/db'],
      cleanEnv(),
    );
    assertSaid(
      r,
      'serve',
      'nothing answers at postgres://someone:***@127.0.0.1:1/db (is PostgreSQL running, on that host and port?)',
    );
  });
});

const reason = await postgresUnreachable();

describe('a PostgreSQL server that refuses', skipWhen(reason), () => {
  it('an unknown role: the server says which, the URL without its password', async () => {
    const r = await runCli(
      ['serve', '--port', '0', '--database-url', 'postgres://no_such_role:pw@127.0.0.1:5432/test'],
      cleanEnv(),
    );
    assertSaid(
      r,
      'serve',
      'PostgreSQL refused the login at postgres://no_such_role:***@127.0.0.1:5432/test: role "no_such_role" does not exist; check the URL\'s user name and password',
    );
  });

  it('an unknown database', async () => {
    const r = await runCli(
      ['serve', '--port', '0', '--database-url', 'postgres://postgres@127.0.0.1:5432/no_such_db'],
      cleanEnv(),
    );
    assertSaid(
      r,
      'serve',
      'PostgreSQL at postgres://postgres@127.0.0.1:5432/no_such_db has no such database: database "no_such_db" does not exist; create it (createdb) or name another in the URL',
    );
  });
});
