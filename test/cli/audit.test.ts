import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { type CliSandbox, sandbox, show } from '../support/cli.ts';
import { auditEvent } from '../support/store-records.ts';

// `ppx audit prune` (docs/audit.md): removes the events older than the retention, and only those.

const DAY = 86_400_000;

describe('ppx audit prune', () => {
  let box: CliSandbox;
  const subject = 'subj_prune';
  before(async () => {
    box = sandbox();
    assert.equal((await box.run(['seed', '--demo'])).code, 0);
    const store = await openSqliteStore(box.db);
    const now = Date.now();
    await store.appendAudit([
      auditEvent({ subject_id: subject, at: new Date(now - 400 * DAY).toISOString() }),
      auditEvent({ subject_id: subject, at: new Date(now - 200 * DAY).toISOString(), claim_keys: ['old'] }),
      auditEvent({ subject_id: subject, at: new Date(now - 10 * DAY).toISOString() }),
    ]);
    await store.close();
  });
  after(() => box.cleanup());

  it('asks how old an event must be when no retention is set', async () => {
    const r = await box.run(['audit', 'prune']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /--older-than-days N/);
  });

  it('refuses a retention that is not a whole number of days, and an unknown subcommand', async () => {
    for (const days of ['0', 'soon', '1.5']) {
      const r = await box.run(['audit', 'prune', '--older-than-days', days]);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, /--older-than-days must be a whole number of days/);
    }
    const r = await box.run(['audit', 'shred']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /unknown subcommand "shred"/);
  });

  it('removes the events older than the retention, oldest first, and keeps the rest', async () => {
    const r = await box.run(['audit', 'prune', '--older-than-days', '365']);
    assert.equal(r.code, 0, show(r));
    assert.match(
      r.stdout,
      /^removed 1 audit events from before \S+, 0 unused key lists, 0 spent refresh tokens/,
    );
    const withEnv = await (async () => {
      box.env['PPX_AUDIT_RETENTION_DAYS'] = '100';
      try {
        return await box.run(['audit', 'prune']);
      } finally {
        delete box.env['PPX_AUDIT_RETENTION_DAYS'];
      }
    })();
    assert.equal(withEnv.code, 0, show(withEnv));
    assert.match(withEnv.stdout, /^removed 1 audit events .*, 1 unused key lists/);
    const store = await openSqliteStore(box.db);
    try {
      const left = await store.listAudit({ subject_id: subject, limit: 10 });
      assert.equal(left.events.length, 1);
    } finally {
      await store.close();
    }
  });
});
