import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { REQUIREMENTS } from './requirements.ts';

const ROOT = new URL('../', import.meta.url);

describe('every requirement is verified by a test that exists', () => {
  it('ids are unique', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    assert.deepEqual([...new Set(ids)], ids);
  });

  for (const req of REQUIREMENTS) {
    it(`${req.id} (${req.source})`, () => {
      assert.ok(req.tests.length > 0, `${req.id} has no test`);
      for (const [file, title] of req.tests) {
        const url = new URL(file, ROOT);
        assert.ok(existsSync(url), `${req.id}: ${file} does not exist`);
        assert.ok(readFileSync(url, 'utf8').includes(title), `${req.id}: no test "${title}" in ${file}`);
      }
    });
  }
});
