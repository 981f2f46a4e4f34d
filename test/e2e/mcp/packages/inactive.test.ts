import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { GrantRecord } from '../../../../src/model/grant-record.ts';
import { childId } from '../../../../src/operations/child-ids.ts';
import { auditAfter, auditMark } from '../../../support/audit.ts';
import { connect, rawPost, toolCall } from '../../../support/mcp-client.ts';
import { startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { assertNoSubjectId, Caller, ENDED, expire, mcpPackage, revoke } from './helpers.ts';

// Read profile §3 / WIRE-NOTES §5, package rows: an inactive named child is a tool result
// `package_child_inactive` (never HTTP 401/403, never another child); scope and cross-domain
// refusals under a child are tool results with their codes.

const CLAIM = {
  type: 'preference',
  namespace: 'fragrance',
  key: 'freshness_preference',
  value: 0.2,
  confidence: 0.6,
  source: { kind: 'observed', origin: 'in_app_session' },
};

describe('MCP package tokens: inactive children and refusals', () => {
  let p: TestProvider;
  let token: string;
  /** active, revoked, expired, single-use past its read deadline. */
  let active: GrantRecord;
  let ended: Array<[string, GrantRecord]>;
  let c: Caller;

  before(async () => {
    p = await startTestProvider();
    const pkg = await mcpPackage(p, [
      {},
      { allowed_namespaces: ['core'] },
      { allowed_namespaces: ['fragrance'] },
      { access_mode: 'single_use' },
    ]);
    token = pkg.token;
    const [a, revoked, expired, single] = pkg.grants as [GrantRecord, GrantRecord, GrantRecord, GrantRecord];
    active = a;
    // The first token consumed the single-use grant: its deadline is the token's expiry; move it past.
    const deadline = (await p.deps.store.getGrant(single.grant_id))?.expires_at;
    const exp = Number(decodeJwt(token).exp) * 1000;
    assert.ok(deadline && Math.abs(Date.parse(deadline) - exp) <= 1000, `${deadline} vs the token's expiry`);
    await revoke(p, revoked.grant_id);
    await expire(p, expired.grant_id);
    await expire(p, single.grant_id);
    ended = [
      ['revoked', revoked],
      ['expired', expired],
      ['single-use past its deadline', single],
    ];
    c = new Caller(await connect(p, token));
    await c.init();
  });
  after(() => p.close());

  it('the active child still reads (the token is active while one child is), and reads are audited', async () => {
    const mark = await auditMark(p);
    const r = await c.call('ppx_get_effective_profile', { grant_id: active.grant_id });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.ok((await auditAfter(p, mark)).length > 0, 'a read leaves an audit event');
  });

  for (const kind of ['revoked', 'expired', 'single-use past its deadline']) {
    it(`a child ${kind} gives package_child_inactive, as a tool result, for every tool`, async () => {
      const grant = ended.find(([k]) => k === kind)![1];
      for (const name of [
        'ppx_get_profile_summary',
        'ppx_get_effective_profile',
        'ppx_list_consent_grants',
      ]) {
        const mark = await auditMark(p);
        const r = await c.call(name, { grant_id: grant.grant_id });
        assert.equal(r.isError, true);
        // The ended child is named by its child id, in the error object and in the text.
        const child = childId(grant.grant_id);
        assert.deepEqual(r.structuredContent, {
          error: { code: 'package_child_inactive', grant_id: child, message: ENDED(child) },
        });
        assert.equal(r.content[0].text, ENDED(child));
        assert.equal(r.structuredContent.data, undefined, 'no other child answers instead');
        assert.deepEqual(
          (await auditAfter(p, mark)).filter((e: { action: string }) => e.action !== 'denied'),
          [],
        );
      }
      const w = await c.call('ppx_propose_updates', { grant_id: grant.grant_id, claims: [CLAIM] });
      assert.equal(w.structuredContent.error.code, 'package_child_inactive');
      // On the wire: HTTP 200 with a JSON-RPC result, never 401/403.
      const raw = await rawPost(p, token, toolCall('ppx_get_profile_summary', { grant_id: grant.grant_id }));
      assert.equal(raw.status, 200, raw.text);
      assert.equal(raw.headers.get('www-authenticate'), null);
      assert.equal(raw.json.result.structuredContent.error.code, 'package_child_inactive');
      assert.doesNotMatch(raw.text, /\b401\b|unauthori[sz]ed|forbidden/i);
    });
  }

  it('an operation or purpose outside the named child is isError insufficient_scope, not 403', async () => {
    for (const [name, args] of [
      ['ppx_export_profile', {}],
      ['ppx_propose_updates', { claims: [CLAIM] }],
      ['ppx_get_effective_profile', { purpose: 'ranking' }],
      ['ppx_query_claims', { requested_namespaces: ['travel'] }],
    ] as const) {
      const r = await c.call(name, { ...args, grant_id: active.grant_id });
      assert.equal(r.isError, true, `${name}: ${JSON.stringify(r)}`);
      assert.equal(r.structuredContent.error.code, 'insufficient_scope', name);
      const raw = await rawPost(p, token, toolCall(name, { ...args, grant_id: active.grant_id }));
      assert.equal(raw.status, 200, raw.text);
    }
  });

  it('a cross-domain read under the named child is isError cross_domain_denied, not 403', async () => {
    const r = await c.call('ppx_get_effective_profile', {
      grant_id: active.grant_id,
      requested_domain: 'travel',
    });
    assert.equal(r.isError, true, JSON.stringify(r));
    assert.equal(r.structuredContent.error.code, 'cross_domain_denied');
    const raw = await rawPost(
      p,
      token,
      toolCall('ppx_get_effective_profile', { grant_id: active.grant_id, requested_domain: 'travel' }),
    );
    assert.equal(raw.status, 200, raw.text);
    assertNoSubjectId(p, [...c.seen, raw.text]);
  });

  it('a write-back the named child forbids is 403 writeback_forbidden (WIRE-NOTES §5), with no challenge', async () => {
    const pkg = await mcpPackage(p, [
      { allowed_operations: ['read', 'propose_update'], writeback_policy: 'forbidden' },
    ]);
    const child = pkg.grants[0]!;
    const raw = await rawPost(
      p,
      pkg.token,
      toolCall('ppx_propose_updates', { claims: [CLAIM], grant_id: child.grant_id }),
    );
    assert.equal(raw.status, 403, raw.text);
    assert.equal(raw.json.error, 'writeback_forbidden');
    assert.equal(raw.json.grant_id, child.grant_id.slice('ppx:grant:'.length), 'the child id');
    assert.equal(raw.headers.get('www-authenticate'), null, 'not a reason to re-authorize');
    assert.doesNotMatch(raw.json.error_description, /\b401\b|unauthori[sz]ed|forbidden/i);
    assertNoSubjectId(p, [raw.text]);
  });

  it('tool error texts avoid the trigger words, codes included', async () => {
    const r = await c.call('ppx_export_profile', { grant_id: active.grant_id });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^insufficient scope: /);
    assert.doesNotMatch(r.content[0].text, /\b401\b|unauthori[sz]ed|forbidden/i);
  });
});
