import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseLabel, loadConfig } from '../../src/config.ts';

describe('config: the PostgreSQL database URL', () => {
  it('comes from --database-url, else PPX_DATABASE_URL, and is absent by default', () => {
    const flag = loadConfig({ databaseUrl: 'postgres://a@h/db' }, { PPX_DATABASE_URL: 'postgres://b@h/db' });
    assert.equal(flag.ok && flag.value.databaseUrl, 'postgres://a@h/db');
    const env = loadConfig({}, { PPX_DATABASE_URL: 'postgresql://b@h/db' });
    assert.equal(env.ok && env.value.databaseUrl, 'postgresql://b@h/db');
    const none = loadConfig({}, {});
    assert.equal(none.ok && 'databaseUrl' in none.value, false);
  });

  it('refuses a URL that is not postgres:// or postgresql://', () => {
    for (const bad of ['mysql://a@h/db', 'data/ppx.db', '']) {
      const r = loadConfig({ databaseUrl: bad }, {});
      assert.equal(r.ok, false, bad);
      assert.equal(
        !r.ok && r.error.description,
        'the database URL must be a postgres:// or postgresql:// URL',
      );
    }
  });

  it('names the database in messages without its password', () => {
    assert.equal(databaseLabel({ dbPath: 'data/ppx.db' }), 'data/ppx.db');
    assert.equal(
      databaseLabel({ dbPath: 'data/ppx.db', databaseUrl: 'postgres://ppx:secret@db:5432/ppx' }),
      'postgres://ppx:***@db:5432/ppx',
    );
  });
});
