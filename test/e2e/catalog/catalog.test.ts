import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Operation } from '../../../src/model/vocabulary.ts';
import { CATALOG, type CatalogOperation, toolNameOf } from '../../../src/operations/catalog/index.ts';
import { createGrant } from '../../../src/operations/grants/consent-grants.ts';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { auditAfter, auditMark } from '../../support/audit.ts';
import { importSecondSubject } from '../../support/derived-views.ts';
import { connect, mcpUrl } from '../../support/mcp-client.ts';
import { type ApiResponse, api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { type Call, FIXTURES } from './fixtures.ts';

// Every operation of the catalog (src/operations/catalog), called on every surface that binds it,
// against a started server: over HTTP it answers with its declared status and output, records
// the audit actions it declares (and no others), and is refused under a grant that lacks the
// operation it declares; over MCP it answers the same as over HTTP, under the same grant
// (STYLE §10: the policy suite against every surface). tools/list and OpenAPI list exactly the
// catalog (test/e2e/mcp/tools.test.ts, test/e2e/http/discovery-schemas.test.ts).

describe('the operation catalog on every surface', () => {
  let shared: TestProvider;
  before(async () => {
    shared = await startTestProvider();
    await importSecondSubject(shared);
  });
  after(() => shared.close());

  it('every operation has a fixture, and every fixture an operation', () => {
    const names = CATALOG.map((o) => o.name);
    assert.equal(new Set(names).size, names.length, 'operation names are unique');
    assert.deepEqual(Object.keys(FIXTURES).sort(), [...names].sort());
  });

  for (const op of CATALOG) {
    const fixture = FIXTURES[op.name];
    if (fixture === undefined) continue;
    const provider = async (): Promise<{ p: TestProvider; done(): Promise<void> }> => {
      if (!fixture.fresh) return { p: shared, done: async () => undefined };
      const p = await startTestProvider();
      return { p, done: () => p.close() };
    };

    describe(op.name, () => {
      if (op.http) {
        it(`over HTTP (${op.http.method} ${op.http.path}): its status, its output, its audit`, async () => {
          const { p, done } = await provider();
          try {
            const call = await fixture.prepare(p);
            const before = await auditMark(p);
            const r = await overHttp(p, op, call);
            const accepted = op.http?.acceptedWhen?.(r.json) === true;
            assert.equal(r.status, accepted ? 202 : (op.http?.successStatus ?? 200), r.text);
            const parsed = op.output.safeParse(r.json);
            assert.ok(parsed.success, `output: ${JSON.stringify(parsed.error?.issues)}`);
            const added = (await auditAfter(p, before)).filter((e) => e.outcome === 'ok');
            const actions = [...new Set(added.map((e) => e.action))];
            // Exactly the declared actions: none undeclared, none declared and never recorded.
            assert.deepEqual(actions.sort(), [...op.audit].sort(), 'the audit actions recorded');
          } finally {
            await done();
          }
        });
      }

      const requirement = op.grant;
      if (op.http && requirement) {
        it(`is refused (403 insufficient_scope) under a grant without ${requirement.operation}`, async () => {
          const call = await fixture.prepare(shared);
          assert.equal(call.who.kind, 'grant', 'an operation a grant must allow is called under a grant');
          if (call.who.kind !== 'grant') return;
          const permitting = [requirement.operation, ...(requirement.alsoPermittedBy ?? [])];
          const others = Operation.options.filter((o) => !permitting.includes(o));
          const g = call.who.grant;
          const lacking = await createGrant(
            shared.deps,
            {
              subject_id: g.subject_id,
              client_id: g.grantee_id,
              purposes: g.purposes,
              allowed_domains: g.allowed_domains,
              allowed_namespaces: g.allowed_namespaces,
              ...(g.allowed_claim_keys ? { allowed_claim_keys: g.allowed_claim_keys } : {}),
              allowed_operations: others,
              cross_domain_transfer: g.cross_domain_transfer,
              writeback_policy: g.writeback_policy,
              ...(g.expires_at ? { expires_at: g.expires_at } : {}),
            },
            'operator',
          );
          assert.ok(lacking.ok);
          const who = { kind: 'grant', grant: lacking.value } as const;
          // WIRE-NOTES §2.7: what the grant refuses comes before the input, so an input the schema
          // refuses gets the same 403 as a good one (and the same description).
          const good = await overHttp(shared, op, { who, input: call.input });
          const bad = await overHttp(shared, op, { who, input: { ...call.input, not_a_member: [{}] } });
          for (const r of [good, bad]) {
            assert.equal(r.status, 403, r.text);
            assert.equal(r.json.error, 'insufficient_scope');
          }
          assert.equal(bad.json.error_description, good.json.error_description);
          assert.ok(op.errors.includes('insufficient_scope'), 'the refusal is among the declared errors');
          if (!op.mcp) return;
          // The same order on MCP: a single-grant token's refusal is an HTTP 403, arguments or not.
          for (const input of [call.input, { ...call.input, not_a_member: [{}] }]) {
            await assert.rejects(
              overMcp(shared, op, { who, input }),
              // The 1.x client: an HTTP error with the status; v2: its typed step-up error.
              (e: { code?: number; name?: string }) => e.code === 403 || e.name === 'InsufficientScopeError',
            );
          }
        });
      }

      if (op.mcp) {
        const title = op.http
          ? `over MCP (${toolNameOf(op.name)}): the same answer as over HTTP under the same grant`
          : `over MCP (${toolNameOf(op.name)}): its output`;
        it(title, async () => {
          const call = await fixture.prepare(shared);
          const mcp = await overMcp(shared, op, call);
          const parsed = op.output.safeParse(mcp);
          assert.ok(parsed.success, `output: ${JSON.stringify(parsed.error?.issues)}`);
          if (!op.http) return;
          // A call that changes state is compared with a twin call prepared the same way.
          const twin = fixture.changes ? await fixture.prepare(shared) : call;
          const http = await overHttp(shared, op, twin);
          assert.ok(http.status < 300, http.text);
          // The same call under the same grant: only times may differ. A twin call: its new ids too.
          assert.deepEqual(comparable(mcp, fixture.changes), comparable(http.json, fixture.changes));
        });
      }
    });
  }
});

async function tokenFor(p: TestProvider, call: Call, audience?: string): Promise<string | undefined> {
  switch (call.who.kind) {
    case 'public':
      return undefined;
    case 'subject':
      return p.subjectToken;
    case 'grant':
      return (await issueGrantToken(p.deps, call.who.grant, 600, audience)).access_token;
  }
}

/** The call over HTTP, its input where the route binds it. */
async function overHttp(p: TestProvider, op: CatalogOperation, call: Call): Promise<ApiResponse> {
  const http = op.http!;
  const token = await tokenFor(p, call);
  let path = http.path.replace(/:([a-z_]+)/g, (_, name: string) =>
    encodeURIComponent(String(call.input[name])),
  );
  if (http.input === 'query') path += `?${new URLSearchParams(call.input as Record<string, string>)}`;
  return api(p.url, path, {
    method: http.method,
    ...(token !== undefined ? { token } : {}),
    ...(http.input === 'body' ? { body: call.input } : {}),
  });
}

/** The call over MCP with the official SDK client; `data` without the MCP presentation members. */
async function overMcp(p: TestProvider, op: CatalogOperation, call: Call): Promise<unknown> {
  const token = await tokenFor(p, call, mcpUrl(p));
  const client = await connect(p, token);
  try {
    // The tool's own grant_id is the grant the call acts under (omitted: the token's one).
    const { grant_id: _acts, ...rest } = call.input;
    const args = op.mcp?.grantIdIsTheCallsGrant ? rest : call.input;
    const r = await client.callTool({ name: toolNameOf(op.name), arguments: args });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    const {
      claim_instances: _i,
      freshness: _f,
      ...data
    } = (r.structuredContent as { data: object }).data as Record<string, unknown>;
    return data;
  } finally {
    await client.close();
  }
}

/**
 * An answer with what differs between two calls set aside: times, and for twin calls (each
 * prepared on its own) the ids of what each made (claims, proposals, grants, events, views),
 * numbered in order of appearance, so two answers compare equal when they say the same about
 * the same things.
 */
function comparable(value: unknown, twin = false): unknown {
  const seen = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (/^\d{4}-\d{2}-\d{2}T/.test(v)) return '<time>';
      const id = /^ppx:([a-z]+):/.exec(v);
      if (twin && id && id[1] !== 'subject' && id[1] !== 'provider' && id[1] !== 'profile') {
        if (!seen.has(v)) seen.set(v, `<${id[1]} ${seen.size}>`);
        return seen.get(v);
      }
      return v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(value);
}
