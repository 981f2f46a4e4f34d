import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';

// The caps on consent requests waiting for one person (issue 22 item 10) are 3 per app and 20 per
// person unless PPX_PENDING_CONSENT_CAPS says otherwise (load harnesses raise them).
describe('config: the caps on pending consent requests', () => {
  it('are 3 per app and 20 per person by default', () => {
    const r = loadConfig({}, {});
    assert.deepEqual(r.ok && r.value.pendingCaps, { perApp: 3, perPerson: 20 });
  });

  it('come from PPX_PENDING_CONSENT_CAPS=<per app>,<per person>', () => {
    const r = loadConfig({}, { PPX_PENDING_CONSENT_CAPS: '5, 40' });
    assert.deepEqual(r.ok && r.value.pendingCaps, { perApp: 5, perPerson: 40 });
  });

  it('refuse anything but two whole numbers of 1 or more, in words', () => {
    for (const bad of ['', '0,20', '3', '3,20,1', 'a,b', '-1,5']) {
      const r = loadConfig({}, { PPX_PENDING_CONSENT_CAPS: bad });
      assert.equal(r.ok, false, bad);
      assert.match(!r.ok ? r.error.description : '', /PPX_PENDING_CONSENT_CAPS must be two whole numbers/);
    }
  });
});
