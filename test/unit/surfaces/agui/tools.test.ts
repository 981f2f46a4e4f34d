import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PERSON_TOOLS } from '../../../../src/surfaces/agui/actions.ts';

// The person's tools of the AG-UI review run come from the catalog (its `agui` entries): only
// the subject's own operations, and each one documented in docs/ag-ui.md.

describe('the AG-UI person tools', () => {
  it('are subject operations of the catalog, never a public or grant-only one', () => {
    assert.ok(PERSON_TOOLS.size >= 10);
    for (const [name, op] of PERSON_TOOLS) {
      assert.equal(op.caller, 'caller', `${name} is called by the person`);
      assert.ok(!name.startsWith('get_effective') && name !== 'query_claims', `${name}: not a grantee read`);
    }
    for (const name of ['confirm_updates', 'revoke_consent_grant', 'export_profile', 'list_audit_events']) {
      assert.ok(PERSON_TOOLS.has(name), name);
    }
  });

  it('are each documented in docs/ag-ui.md', () => {
    const doc = readFileSync(new URL('../../../../docs/ag-ui.md', import.meta.url), 'utf8');
    for (const name of PERSON_TOOLS.keys())
      assert.ok(doc.includes(`\`${name}\``), `${name} in docs/ag-ui.md`);
  });
});
