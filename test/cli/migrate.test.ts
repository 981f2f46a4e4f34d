import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';
import { dropSchemas, postgresUnreachable, schemaName, urlInSchema } from '../support/postgres.ts';
import { skipWhen } from '../support/skip.ts';

// `ppx migrate` as a user runs it (issue 14, item 3): a store seeded on SQLite moved to PostgreSQL
// and back, checked by what `ppx export` gives for each subject before and after; a progress bar
// on stderr; a target that holds a store refused; wrong arguments said in words.

const schemas: string[] = [];
const schema = schemaName('mvcli', schemas);
const reason = await postgresUnreachable();

describe('ppx migrate', () => {
  let box: CliSandbox;
  const url = new URL(urlInSchema(schema));
  const subjects = ['did:example:user-demo-0001', 'did:example:scale-0000000', 'did:example:scale-0000001'];

  before(() => {
    box = sandbox();
  });
  after(async () => {
    box.cleanup();
    if (!reason) await dropSchemas(schemas);
  });

  const exports = async (where: string[]) => {
    const out: string[] = [];
    for (const subject of subjects) {
      const r = await box.run(['export', '--subject', subject, ...where]);
      assert.equal(r.code, 0, show(r));
      out.push(r.stdout);
    }
    return out;
  };

  it('moves a store to PostgreSQL and back, and every export is the same', {
    ...skipWhen(reason),
  }, async () => {
    for (const args of [
      ['seed', '--demo'],
      [
        'seed',
        '--scale',
        '2',
        '--claims-per-subject',
        '30',
        '--grants-per-subject',
        '3',
        '--audit-per-subject',
        '10',
      ],
    ]) {
      const r = await box.run(args);
      assert.equal(r.code, 0, show(r));
    }
    const before = await exports(['--db', box.db]);

    const there = await box.run(['migrate', '--from', `sqlite:${box.db}`, '--to', url.href]);
    assert.equal(there.code, 0, show(there));
    assert.match(there.stderr, /100\.0% \d+\/\d+ rows/);
    assert.match(there.stdout, /^claims\s+\d+\s+same/m);
    assert.match(there.stdout, /every table of .* matches the source, row for row/);
    assert.doesNotMatch(there.stdout, /DIFFERS/);
    assert.deepEqual(await exports(['--database-url', url.href]), before);

    const back = box.path('back.db');
    const home = await box.run(['migrate', '--from', url.href, '--to', `sqlite:${back}`]);
    assert.equal(home.code, 0, show(home));
    assert.deepEqual(await exports(['--db', back]), before);

    const again = await box.run(['migrate', '--from', `sqlite:${box.db}`, '--to', url.href]);
    assert.equal(again.code, 1, show(again));
    assert.match(again.stderr, /already holds a store .*moves into an empty one/);
  });

  it('says what is wrong with its arguments', async () => {
    const none = await box.run(['migrate', '--from', 'sqlite:x.db']);
    assert.equal(none.code, 2, show(none));
    assert.match(none.stderr, /both --from and --to are required/);
    const same = await box.run(['migrate', '--from', box.db, '--to', `sqlite:${box.db}`]);
    assert.equal(same.code, 2, show(same));
    assert.match(same.stderr, /name the same store/);
    const missing = await box.run(['migrate', '--from', box.path('nothing.db'), '--to', box.path('new.db')]);
    assert.equal(missing.code, 1, show(missing));
    assert.match(missing.stderr, /no database at .*nothing\.db/);
  });
});
