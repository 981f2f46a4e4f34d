import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { followAuditAppends, noticeAuditAppended } from '../../../../src/operations/audit/audit-notices.ts';
import type { Deps } from '../../../../src/operations/deps.ts';
import { coalesce } from '../../../../src/surfaces/agui/audit-notices.ts';

// The log's live notices (issue 26, item 3): a person hears of their own entries only, on their
// own provider's store, until they stop listening; a run says it at most once per gap.

describe('audit notices', () => {
  const store = {} as Deps['store'];
  const other = {} as Deps['store'];

  it('reach the subject’s listeners only, on the same store, until they stop', () => {
    const heard: string[] = [];
    const stopA = followAuditAppends({ store }, 'alice', () => heard.push('alice'));
    const stopB = followAuditAppends({ store }, 'bob', () => heard.push('bob'));
    noticeAuditAppended({ store }, 'alice');
    noticeAuditAppended({ store: other }, 'alice');
    noticeAuditAppended({ store }, 'carol');
    assert.deepEqual(heard, ['alice']);
    stopA();
    noticeAuditAppended({ store }, 'alice');
    noticeAuditAppended({ store }, 'bob');
    assert.deepEqual(heard, ['alice', 'bob']);
    stopB();
  });

  it('are said at once, then at most once per gap, whatever came meanwhile', async () => {
    let said = 0;
    const notice = coalesce(() => {
      said += 1;
    }, 20);
    notice.poke();
    assert.equal(said, 1);
    for (let i = 0; i < 10; i++) notice.poke();
    assert.equal(said, 1);
    await new Promise<void>((resolve) => {
      const check = () => (said === 2 ? resolve() : setImmediate(check));
      check();
    });
    notice.poke();
    notice.stop();
    assert.equal(said, 2, 'stopped: what waited is dropped');
  });
});
