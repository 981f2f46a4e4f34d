import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openConnections } from '../../src/store/sqlite/connections.ts';

// A savepoint's journal is kept in memory only for transactions known to be small (refresh
// rotations, audit appends: connections.ts#begin); every other one may spill it to a temporary
// file as SQLite does by default, so that a large cascade never holds its pages in memory.
describe('sqlite savepoint journals', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ppx-journal-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('are in memory for a small transaction and back to the default for the next other one', () => {
    const connections = openConnections(join(dir, 'a.db'));
    const tempStore = () => Number(connections.writer.prepare('PRAGMA temp_store').get()?.['temp_store']);
    try {
      assert.equal(tempStore(), 0);
      connections.begin(true);
      assert.equal(tempStore(), 2, 'MEMORY');
      connections.control('COMMIT');
      connections.begin(true);
      connections.control('COMMIT');
      connections.begin(false);
      assert.equal(tempStore(), 0, 'DEFAULT');
      connections.control('COMMIT');
      assert.equal(tempStore(), 0);
    } finally {
      connections.close();
    }
  });
});
