import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { GrantRecord } from '../../../src/model/grant-record.ts';
import { CATALOG, type CatalogOperation, toolNameOf } from '../../../src/operations/catalog/index.ts';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { setChangeTimes } from '../../support/change-times.ts';
import { comparableRun } from '../../support/compare.ts';
import { importSecondSubject, SECOND_SUBJECT } from '../../support/derived-views.ts';
import { mcpUrl, rawPost, toolCall } from '../../support/mcp-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { SCENARIOS, type Scenario } from './hidden-scenarios.ts';

// Issue 10: a grantee must not be able to tell a hidden claim from an absent one. For each way a
// claim can be hidden from a grant (another key of a granted namespace, a namespace outside it,
// a core claim of another domain, a rejected claim, another domain's claims under
// allow_with_review, an imported one under allow_if_same_provider), two providers run the same
// calls under the same grant: in one the hidden claims exist, in the other the subject deleted
// them. Every operation of the catalog a grant may call, over HTTP and over MCP (and the MCP
// resources), reads and write-back alike, must answer both the same: status, headers and body,
// every id, time and count. The ids each provider mints (grants, proposals, events, pairwise ids)
// are compared by position (test/support/compare.ts); the clock is frozen, so generated_at agrees
// too. Times of change come from the database's clock: every one is set back to the same instant
// before the calls, so a hidden deletion that moved one would show.

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** One provider of a pair: its grant, tokens and what the calls need to refer to. */
interface World {
  readonly p: TestProvider;
  readonly grant: GrantRecord;
  readonly http: string;
  readonly mcp: string;
  readonly counterpart: GrantRecord;
  /** The pending proposals propose_updates answered, oldest first, for confirm_updates to take. */
  proposals: string[];
}

async function world(s: Scenario, withHidden: boolean, clock: () => Date, expiresAt: string): Promise<World> {
  const p = await startTestProvider({ clock });
  await importSecondSubject(p);
  await s.prepare?.(p);
  const profile = await p.deps.store.getProfileBySubject(p.subjectId);
  assert.ok(profile);
  // Every change time the same, long ago: then a hidden claim deleted below must move none.
  await setChangeTimes(
    p.database,
    profile.profile_id,
    new Date(clock().getTime() + DAY + HOUR / 2).toISOString(),
  );
  if (!withHidden) await s.remove(p);
  const { grant } = await p.grant({ ...s.grant, expires_at: expiresAt });
  const { grant: counterpart } = await p.grant({
    client_id: grant.grantee_id,
    subject_id: SECOND_SUBJECT,
    purposes: ['matching'],
    allowed_domains: grant.allowed_domains,
    allowed_namespaces: ['core'],
    expires_at: expiresAt,
  });
  return {
    p,
    grant,
    counterpart,
    http: (await issueGrantToken(p.deps, grant, 3600)).access_token,
    mcp: (await issueGrantToken(p.deps, grant, 3600, mcpUrl(p))).access_token,
    proposals: [],
  };
}

/** Inputs for each grant-callable operation of the catalog; more than one means one call each. */
function inputsOf(
  op: CatalogOperation,
  s: Scenario,
  w: World,
  i: number,
): Record<string, unknown> | undefined {
  const hiddenId = s.hidden[0]!;
  const one = (input: Record<string, unknown>) => [() => input];
  const byName: Record<string, (() => Record<string, unknown>)[]> = {
    list_granted_access: one({}),
    get_profile_summary: one({}),
    query_claims: [() => ({}), () => ({ requested_namespaces: ['core'], min_confidence: 0.5 })],
    get_effective_profile: one({ context: { occasion: 'date_night', climate: 'hot_humid' } }),
    export_profile: one({}),
    list_consent_grants: one({}),
    list_audit_events: one({ limit: '200' }),
    propose_updates: one({ claims: s.proposals }),
    confirm_updates: [
      // The oldest pending proposal, each once (over HTTP the one HTTP made, over MCP MCP's).
      () => ({ decisions: w.proposals.splice(0, 1).map((id) => ({ proposal_id: id, action: 'confirm' })) }),
      () => ({ decisions: [{ claim_id: hiddenId, action: 'confirm' }] }),
    ],
    derive_match: one({ target: { novelty_tolerance: 0.5, budget_sensitivity: 0.5 } }),
    derive_compatibility: one({ counterpart_grant_id: w.counterpart.grant_id }),
    derive_recommendation_basis: one({ context: { occasion: 'date_night' } }),
    // What only the subject may do: a grant is refused, with or without the hidden claims.
    approve_grant_request: one({ grant_request_id: 'ppx:request:none' }),
    reject_grant_request: one({ grant_request_id: 'ppx:request:none' }),
    list_grant_usage: one({}),
    list_claim_history: one({ claim_id: hiddenId }),
    diff_profile: one({ from: '2020-01-01T00:00:00Z' }),
    delete_claim: one({ claim_id: hiddenId }),
    delete_namespace: one({ namespace: 'travel' }),
    delete_profile: one({}),
    get_sensitive_keys: one({}),
    set_sensitive_keys: one({ sensitive_keys: ['novelty_tolerance'] }),
    list_cross_domain_reviews: one({ status: 'all' }),
    approve_cross_domain_review: one({ review_id: 'ppx:review:none' }),
    reject_cross_domain_review: one({ review_id: 'ppx:review:none' }),
    // Last of all: it ends the grant.
    revoke_consent_grant: one({ grant_id: w.grant.grant_id }),
  };
  const inputs = byName[op.name];
  assert.ok(inputs, `${op.name}: a grant may call it, so this test needs an input for it`);
  return inputs[i]?.();
}

/** Headers that say nothing: the rest must agree. */
const IGNORED_HEADERS = new Set(['date', 'connection', 'keep-alive']);

function headersOf(h: Headers): Record<string, string> {
  return Object.fromEntries([...h].filter(([k]) => !IGNORED_HEADERS.has(k)).sort());
}

/** An MCP answer with its text content parsed, so the ids inside it compare like the others. */
function mcpBody(json: unknown): unknown {
  const result = (json as { result?: { content?: { type: string; text?: string }[] } })?.result;
  if (!result?.content) return json;
  const content = result.content.map((c) => {
    if (c.type !== 'text' || c.text === undefined) return c;
    try {
      return { ...c, text: JSON.parse(c.text) as unknown };
    } catch {
      return c;
    }
  });
  return { ...(json as object), result: { ...result, content } };
}

interface Answer {
  readonly call: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly text: string;
  /** What the call sent (not compared: the same in both). */
  readonly input: unknown;
}

async function overHttp(
  w: World,
  op: CatalogOperation,
  input: Record<string, unknown>,
  label: string,
): Promise<Answer> {
  const http = op.http!;
  let path = http.path.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(String(input[name])));
  if (http.input === 'query') path += `?${new URLSearchParams(input as Record<string, string>)}`;
  const r = await api(w.p.url, path, {
    method: http.method,
    token: w.http,
    ...(http.input === 'body' ? { body: input } : {}),
  });
  return {
    call: `HTTP ${label}`,
    status: r.status,
    headers: headersOf(r.headers),
    body: r.json,
    text: r.text,
    input,
  };
}

async function overMcp(w: World, label: string, message: unknown): Promise<Answer> {
  const r = await rawPost(w.p, w.mcp, message);
  return {
    call: `MCP ${label}`,
    status: r.status,
    headers: headersOf(r.headers),
    body: mcpBody(r.json),
    text: r.text,
    input: message,
  };
}

/** Every call of the run, in order: reads, MCP resources, write-back, reads again, the revocation. */
function calls(s: Scenario): ((w: World) => Promise<Answer | undefined>)[] {
  const grantOps = CATALOG.filter((op) => op.caller !== 'public');
  const revoke = grantOps.filter((op) => op.name === 'revoke_consent_grant');
  const writes = grantOps.filter((op) => op.name === 'propose_updates' || op.name === 'confirm_updates');
  const reads = grantOps.filter((op) => !revoke.includes(op) && !writes.includes(op));
  const over = (op: CatalogOperation) =>
    [0, 1, 2].flatMap((i) => [
      ...(op.http
        ? [
            async (w: World) => {
              const input = inputsOf(op, s, w, i);
              return input === undefined
                ? undefined
                : remember(w, await overHttp(w, op, input, `${op.name} #${i}`));
            },
          ]
        : []),
      ...(op.mcp
        ? [
            async (w: World) => {
              const input = inputsOf(op, s, w, i);
              if (input === undefined) return undefined;
              // The tool's grant_id is the grant the call acts under (omitted: the token's one).
              const { grant_id: _own, ...rest } = input;
              const args = op.mcp?.grantIdIsTheCallsGrant ? rest : input;
              return remember(
                w,
                await overMcp(w, `${toolNameOf(op.name)} #${i}`, toolCall(toolNameOf(op.name), args)),
              );
            },
          ]
        : []),
    ]);
  const resources = [
    (w: World) => overMcp(w, 'resources/list', { jsonrpc: '2.0', id: 3, method: 'resources/list' }),
    ...['summary', 'effective'].map(
      (kind) => (w: World) =>
        overMcp(w, `resources/read ${kind}`, {
          jsonrpc: '2.0',
          id: 4,
          method: 'resources/read',
          params: {
            uri: `ppx://profile/${w.p.deps.pairwise.profile(w.grant.profile_id, w.grant.grantee_id)}/${kind}`,
          },
        }),
    ),
  ];
  const steps = [...reads, ...writes, ...reads, ...revoke].flatMap(over);
  return [...resources, ...steps];
}

/** Keeps the proposal ids a propose_updates answer names, for the confirm_updates that follows. */
function remember(w: World, a: Answer): Answer {
  const body = a.body as {
    proposals?: { proposal_id: string; status: string }[];
    result?: { structuredContent?: { data?: { proposals?: { proposal_id: string; status: string }[] } } };
  };
  const proposals = body?.proposals ?? body?.result?.structuredContent?.data?.proposals;
  if (proposals)
    w.proposals.push(...proposals.filter((x) => x.status === 'pending').map((x) => x.proposal_id));
  return a;
}

describe('a grantee cannot tell a hidden claim from an absent one, on any operation', () => {
  const open: TestProvider[] = [];
  after(() => Promise.all(open.map((p) => p.close())));

  for (const s of SCENARIOS) {
    it(s.name, async () => {
      // An hour boundary between the two runs would move a change time in one only: run again.
      for (let attempt = 0; ; attempt++) {
        const now = new Date(Date.now() - 30 * DAY);
        const clock = () => now;
        const expiresAt = new Date(now.getTime() + 60 * DAY).toISOString();
        const [hidden, absent] = [
          await world(s, true, clock, expiresAt),
          await world(s, false, clock, expiresAt),
        ];
        open.push(hidden.p, absent.p);
        const hour = Math.floor(Date.now() / HOUR);
        const answers: [Answer[], Answer[]] = [[], []];
        for (const call of calls(s)) {
          const [a, b] = [await call(hidden), await call(absent)];
          if (a !== undefined) answers[0].push(a);
          if (b !== undefined) answers[1].push(b);
        }
        if (Math.floor(Date.now() / HOUR) !== hour && attempt === 0) continue;

        // Each provider listens on a port of its own: its base URL (in a challenge, say) is set aside.
        const comparable = (run: Answer[], base: string) =>
          comparableRun(
            run.map(({ call, status, headers, body }) =>
              JSON.parse(JSON.stringify({ call, status, headers, body }).replaceAll(base, '<base>')),
            ),
          );
        const [inHidden, inAbsent] = [
          comparable(answers[0], hidden.p.url),
          comparable(answers[1], absent.p.url),
        ];
        // The same calls, the same answers: the first that differs is named.
        assert.equal(inHidden.length, inAbsent.length);
        for (const [i, a] of inHidden.entries()) assert.deepEqual(a, inAbsent[i], answers[0][i]?.call);
        // No answer names a hidden claim, but a refusal repeating the id the call itself sent.
        for (const a of answers[0]) {
          const refused =
            a.status >= 400 || (a.body as { result?: { isError?: boolean } })?.result?.isError === true;
          for (const id of s.hidden) {
            if (refused && JSON.stringify(a.input).includes(id)) continue;
            assert.ok(!a.text.includes(id), `${a.call} names the hidden ${id}: ${a.text}`);
          }
        }
        // The run does what it is for: reads answered, proposals applied and queued, refusals refused.
        const status = (call: string) =>
          answers[0].filter((a) => a.call.startsWith(`${call} #`)).map((a) => a.status);
        assert.deepEqual(status('HTTP get_effective_profile'), [200, 200]);
        assert.deepEqual(status('HTTP propose_updates'), [202]);
        assert.deepEqual(
          status('HTTP confirm_updates'),
          [200, 404],
          'a proposal confirmed; the hidden claim not found',
        );
        assert.deepEqual(status('HTTP delete_claim'), [403, 403]);
        assert.equal(answers[0].at(-1)?.status, 401, 'the grant was revoked last');
        return;
      }
    });
  }
});
