import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanEnv, runCli, sandbox, show } from '../support/cli.ts';

// Commands other than `serve` and `seed` refuse a database that is not there, instead of creating
// an empty one and then saying the client or subject is unknown (issue 11, item 2).

const COMMANDS: string[][] = [
  ['mint', 'grant', '--client', 'fragrance-demo', '--namespaces', 'core'],
  ['mint', 'subject'],
  ['mint', 'env'],
  ['export', '--subject', 'did:example:user-demo-0001'],
  ['subject', 'add', '--username', 'alice', '--password', 'alice-password-1'],
  ['client', 'add', '--id', 'c1', '--name', 'C1'],
  ['audit', 'prune', '--older-than-days', '30'],
];

describe('a database that does not exist', () => {
  const box = sandbox();
  const elsewhere = mkdtempSync(join(tmpdir(), 'ppx-cwd-'));
  after(() => {
    box.cleanup();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  for (const args of COMMANDS) {
    it(`ppx ${args.join(' ')} names the path looked at and how to point at the right one; creates nothing`, async () => {
      const r = await box.run(args);
      assert.equal(r.code, 1, show(r));
      assert.equal(
        r.stderr,
        `ppx ${args[0]}: no database at ${box.db}. Point at the server's database with --db PATH or ` +
          'PPX_DB=PATH (ppx serve and ppx seed --demo create one)\n',
      );
      assert.equal(r.stdout, '');
      assert.equal(existsSync(box.db), false);
    });
  }

  it('ppx import FILE refuses it too, before reading the file into a store', async () => {
    const r = await box.run(['import', join(import.meta.dirname, '../../package.json')]);
    // package.json is JSON but no profile: the database is checked first, as for every command.
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^ppx import: no database at /);
    assert.equal(existsSync(box.db), false);
  });

  it('run from another folder without --db or PPX_DB: says the default was looked for there', async () => {
    const r = await runCli(['mint', 'subject'], cleanEnv(), 30_000, elsewhere);
    assert.equal(r.code, 1, show(r));
    assert.equal(
      r.stderr,
      `ppx mint: no database at ${join(elsewhere, 'data/ppx.db')} (the default, data/ppx.db under the ` +
        "current folder). Point at the server's database with --db PATH or PPX_DB=PATH (ppx serve and " +
        'ppx seed --demo create one)\n',
    );
    assert.equal(existsSync(join(elsewhere, 'data')), false);
  });

  it('--db naming a missing file is refused the same way; seed creates it', async () => {
    const db = box.path('other.db');
    const refused = await box.run(['mint', 'subject', '--db', db]);
    assert.equal(refused.code, 1, show(refused));
    assert.match(refused.stderr, new RegExp(`no database at ${db.replaceAll('.', '\\.')}\\.`));
    const seeded = await box.run(['seed', '--demo', '--db', db]);
    assert.equal(seeded.code, 0, show(seeded));
    const minted = await box.run(['mint', 'subject', '--db', db]);
    assert.equal(minted.code, 0, show(minted));
  });
});
