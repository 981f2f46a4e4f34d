import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';

// `ppx seed --scale N` (issue 14, item 5): generated subjects with their claims, grants and audit
// history in one process, with progress on stderr; seeding again from where it stopped grows the
// store; bad numbers are refused in words.

describe('ppx seed --scale', () => {
  let box: CliSandbox;
  before(() => {
    box = sandbox();
  });
  after(() => box.cleanup());

  it('seeds N subjects with their claims, grants and reads, and grows the store with --from-subject', async () => {
    const first = await box.run([
      'seed',
      '--scale',
      '3',
      '--claims-per-subject',
      '20',
      '--grants-per-subject',
      '2',
      '--audit-per-subject',
      '5',
    ]);
    assert.equal(first.code, 0, show(first));
    assert.match(first.stdout, /seeded 3 subjects: 60 claims, 6 grants, 15 audit events in/);
    assert.match(first.stderr, /100\.0% 3\/3 subjects/);
    const more = await box.run([
      'seed',
      '--scale',
      '2',
      '--from-subject',
      '3',
      '--claims-per-subject',
      '20',
      '--grants-per-subject',
      '2',
      '--audit-per-subject',
      '5',
    ]);
    assert.equal(more.code, 0, show(more));
    const store = await openSqliteStore(box.db);
    try {
      const last = await store.getProfileBySubject('did:example:scale-0000004');
      assert.ok(last, 'subject 4 was seeded by the second run');
      assert.equal((await store.listClaims(last.profile_id)).length, 20);
      assert.equal((await store.listGrantsBySubject('did:example:scale-0000004')).length, 2);
      const audit = await store.listAudit({ subject_id: 'did:example:scale-0000004', limit: 50 });
      assert.equal(audit.events.length, 5);
    } finally {
      await store.close();
    }
  });

  it('refuses numbers it cannot use, in words, with exit code 2', async () => {
    for (const [args, words] of [
      [['--scale', '0'], /--scale must be a whole number from 1, not "0"/],
      [['--scale', 'many'], /--scale must be a whole number/],
      [['--scale', '2', '--claims-per-subject=0'], /--claims-per-subject must be a whole number from 1/],
      [['--scale', '2', '--audit-per-subject', '2.5'], /--audit-per-subject must be a whole number from 0/],
    ] as const) {
      const r = await box.run(['seed', ...args]);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, words);
    }
    const none = await box.run(['seed']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /say what to seed: --demo, or --scale N/);
  });
});
