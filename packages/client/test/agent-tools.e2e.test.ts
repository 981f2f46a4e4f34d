import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approve } from '../../../test/support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../test/support/provider.ts';
import {
  agentTools,
  discover,
  Grant,
  PpxClient,
  runTool,
  toAiSdkTools,
  toAnthropicTools,
  toOpenAITools,
} from '../src/index.ts';

// A grant as agent tools (issue 28 item 3): the tool definitions in the OpenAI, Anthropic and
// Vercel AI SDK shapes, run against a started provider; a refusal is an answer the model reads,
// and a revoked grant's tool call says so.

describe('agent tools over a grant', () => {
  let p: TestProvider;
  let grant: Grant;
  let grantId: string;
  before(async () => {
    p = await startTestProvider();
    const provider = await discover(p.url);
    assert.ok(provider.ok);
    const c = new PpxClient(provider.value, { clientId: 'fragrance-demo' });
    const pending = await c.requestGrant({
      subject_id: p.subjectId,
      purposes: ['recommendation', 'propose_update'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
      redirect_uri: 'http://localhost:5173/callback',
    });
    assert.ok(pending.ok, JSON.stringify(pending));
    assert.equal((await approve(p, pending.value.grantRequestId)).status, 200);
    const tokens = await c.exchange(pending.value);
    assert.ok(tokens.ok, JSON.stringify(tokens));
    grantId = tokens.value.grantId;
    grant = new Grant(c, grantId);
  });
  after(() => p.close());

  it('reads the effective profile in three lines, in each tool format', async () => {
    const tools = agentTools(grant);
    assert.deepEqual(
      tools.map((t) => t.name),
      ['ppx_get_effective_profile', 'ppx_query_preferences', 'ppx_get_preference_summary'],
    );
    const profile = (await runTool(tools, 'ppx_get_effective_profile', {
      context: { occasion: 'date_night' },
    })) as {
      claims: { namespace: string }[];
    };
    assert.ok(profile.claims.length > 0);
    assert.ok(profile.claims.every((c) => c.namespace === 'core' || c.namespace === 'fragrance'));

    const openai = toOpenAITools(tools);
    const [first] = openai;
    assert.ok(first);
    assert.equal(first.type, 'function');
    assert.equal(first.function.name, 'ppx_get_effective_profile');
    assert.equal((first.function.parameters as { type: string }).type, 'object');
    const anthropic = toAnthropicTools(tools);
    assert.deepEqual(Object.keys(anthropic[0] ?? {}), ['name', 'description', 'input_schema']);
    const wrapped = toAiSdkTools(tools, (schema) => ({ jsonSchema: schema }));
    assert.deepEqual(wrapped['ppx_query_preferences']?.inputSchema, { jsonSchema: tools[1]?.parameters });
    // OpenAI hands the arguments over as JSON text.
    const stated = (await runTool(tools, 'ppx_query_preferences', '{"provenance":["user_stated"]}')) as {
      claims: { source: { kind: string } }[];
    };
    assert.ok(stated.claims.every((c) => c.source.kind === 'user_stated'));
  });

  it('suggests only when asked to, and says what became of the suggestion', async () => {
    const tools = agentTools(grant, { write: true });
    assert.ok(tools.some((t) => t.name === 'ppx_suggest_preference_change'));
    const r = (await runTool(tools, 'ppx_suggest_preference_change', {
      claims: [
        {
          type: 'preference',
          namespace: 'fragrance',
          key: 'freshness_preference',
          value: 0.9,
          confidence: 0.6,
          source: { kind: 'observed', origin: 'agent_session' },
        },
      ],
    })) as { outcome: string };
    assert.equal(r.outcome, 'queued_for_review');
    assert.deepEqual(await runTool(tools, 'ppx_suggest_preference_change', { claims: [] }), {
      error: { code: 'invalid_request', description: 'claims must be a list of at least one claim' },
    });
    assert.equal(
      ((await runTool(tools, 'nope', {})) as { error: { code: string } }).error.code,
      'unknown_tool',
    );
  });

  it('a revoked grant: the tool answers the refusal for the model to read', async () => {
    const revoked = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: grantId },
    });
    assert.equal(revoked.status, 200);
    const r = (await runTool(agentTools(grant), 'ppx_get_preference_summary', {})) as {
      error: { code: string };
    };
    assert.equal(r.error.code, 'grant_revoked');
  });
});
