import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GrantRecord } from '../../../src/model/grant-record.ts';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { setChangeTimes } from '../../support/change-times.ts';
import { connect, mcpGrant } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { proposed } from '../../support/writeback.ts';

// Issue 10, leak 2: every time a grantee is told (its export's `updated_at`, over HTTP and MCP,
// and MCP `freshness[].last_success_at`) says when the data *its grant can read* last changed. A
// creation, an update or a deletion of a claim hidden from the grant — another key of a granted
// namespace, or a claim of another domain — leaves each of them as it was; the same of a claim it
// sees moves them.

const HOUR = 3_600_000;
const hourOf = (t: number) => new Date(Math.floor(t / HOUR) * HOUR).toISOString();

describe('times a grantee is told move only with the claims its grant can see', () => {
  let p: TestProvider;
  let grant: GrantRecord;
  let httpToken: string;
  let mcpToken: string;
  // The operations' clock stands a month back, so the profile was created long before any change
  // the store times now (an export's updated_at is never before created_at).
  const created = new Date(Date.now() - 30 * 86_400_000);
  /** A time between the profile's creation and now, that every change time is set back to. */
  const OLD = new Date(created.getTime() + 86_400_000 + 1_800_000).toISOString();

  before(async () => {
    p = await startTestProvider({ clock: () => created });
    ({ grant, token: mcpToken } = await mcpGrant(p, {
      allowed_namespaces: ['core', 'fragrance'],
      allowed_claim_keys: [
        'budget_sensitivity',
        'decision_speed_preference',
        'fragrance.intensity_preference',
        'fragrance.freshness_preference',
      ],
      allowed_domains: ['fragrance'],
      allowed_operations: ['read', 'query', 'export'],
    }));
    httpToken = (await issueGrantToken(p.deps, grant)).access_token;
  });
  after(() => p.close());

  /** Every time the grantee is told, over HTTP and MCP. */
  async function told(): Promise<{ http: string; mcp: string; freshness: Record<string, string> }> {
    const exported = await api(p.url, '/v1/export', { token: httpToken, body: {} });
    assert.equal(exported.status, 200, exported.text);
    const client = await connect(p, mcpToken);
    try {
      const effective = await client.callTool({ name: 'ppx_get_effective_profile', arguments: {} });
      const mcpExport = await client.callTool({ name: 'ppx_export_profile', arguments: {} });
      const data = (r: typeof effective) => (r.structuredContent as { data: Record<string, unknown> }).data;
      const freshness = data(effective)['freshness'] as { stream: string; last_success_at: string }[];
      return {
        http: exported.json.updated_at,
        mcp: data(mcpExport)['updated_at'] as string,
        freshness: Object.fromEntries(freshness.map((f) => [f.stream, f.last_success_at])),
      };
    } finally {
      await client.close();
    }
  }

  const write = async (claim: unknown) => {
    const r = await api(p.url, '/v1/profile/propose-updates', {
      token: p.subjectToken,
      body: { claims: [claim] },
    });
    assert.equal(r.status, 200, r.text);
    return r.json.claims[0].claim_id as string;
  };
  const remove = async (claimId: string) => {
    const r = await api(p.url, `/v1/profile/claims/${encodeURIComponent(claimId)}`, {
      method: 'DELETE',
      token: p.subjectToken,
    });
    assert.equal(r.status, 200, r.text);
  };

  /** Sets every change time back to OLD, runs `change`, and returns what the grantee is told before and after. */
  async function around(change: () => Promise<unknown>) {
    await setChangeTimes(p.database, grant.profile_id, OLD);
    const before_ = await told();
    assert.deepEqual(
      { ...before_ },
      {
        http: hourOf(Date.parse(OLD)),
        mcp: hourOf(Date.parse(OLD)),
        freshness: { core: hourOf(Date.parse(OLD)), fragrance: hourOf(Date.parse(OLD)) },
      },
    );
    const start = Date.now();
    await change();
    return { before: before_, after: await told(), now: [hourOf(start), hourOf(Date.now())] };
  }

  const aversions = (value: string[]) =>
    proposed('fragrance', 'note_aversions', value, {
      value_type: 'string_list',
      source: { kind: 'user_stated' },
    });
  const decisionSpeed = (value: number, domains?: string[]) =>
    proposed('core', 'decision_speed_preference', value, domains ? { applicability: { domains } } : {});

  it('another key of a granted namespace: its update, deletion and creation move nothing', async () => {
    let id = 'ppx:claim:demo-frag-aversions';
    for (const change of [
      () => write({ ...aversions(['vanilla']), claim_id: id }),
      () => remove(id),
      async () => {
        id = await write(aversions(['oud']));
      },
    ]) {
      const r = await around(change);
      assert.deepEqual(r.after, r.before);
    }
  });

  it('a claim of another domain: its creation, update and deletion move nothing', async () => {
    let id = '';
    for (const change of [
      async () => {
        id = await write(decisionSpeed(0.3, ['travel']));
      },
      () => write({ ...decisionSpeed(0.8, ['travel']), claim_id: id }),
      () => remove(id),
    ]) {
      const r = await around(change);
      assert.deepEqual(r.after, r.before);
    }
  });

  it('a claim the grant sees: its update, deletion and creation move its stream and the export', async () => {
    const moved = (r: Awaited<ReturnType<typeof around>>, stream: string) => {
      assert.ok(r.now.includes(r.after.freshness[stream] ?? ''), `${stream}: ${JSON.stringify(r.after)}`);
      assert.ok(r.now.includes(r.after.http), r.after.http);
      assert.equal(r.after.mcp, r.after.http);
      for (const [other, at] of Object.entries(r.after.freshness)) {
        if (other !== stream) assert.equal(at, r.before.freshness[other], `${other} did not move`);
      }
    };
    moved(
      await around(() =>
        write(
          proposed('fragrance', 'intensity_preference', 0.2, { claim_id: 'ppx:claim:demo-frag-intensity' }),
        ),
      ),
      'fragrance',
    );
    moved(await around(() => remove('ppx:claim:demo-frag-intensity')), 'fragrance');
    moved(await around(() => write(decisionSpeed(0.6))), 'core');
  });

  it('a claim moved out of the grant’s sight moves its time; one moved into it too', async () => {
    const out = await around(() => write({ ...decisionSpeed(0.6), applicability: { domains: ['travel'] } }));
    assert.ok(out.now.includes(out.after.freshness['core'] ?? ''), JSON.stringify(out.after));
    const back = await around(() => write({ ...decisionSpeed(0.6) }));
    assert.ok(back.now.includes(back.after.freshness['core'] ?? ''), JSON.stringify(back.after));
  });
});
