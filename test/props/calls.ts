import { type Claim, qualifiedKey } from '../../src/model/claim.ts';
import type { GrantRecord } from '../../src/model/grant-record.ts';
import { CATALOG, toolNameOf } from '../../src/operations/catalog/index.ts';
import { rawPost, toolCall } from '../support/mcp-client.ts';
import { api } from '../support/provider.ts';
import { proposed } from '../support/writeback.ts';
import { POOL, type Step } from './case.ts';
import type { World } from './world.ts';

// One step of a case on the wire: the grantee's call over HTTP, MCP (raw JSON-RPC, as the
// answers are compared byte for byte: an SDK client would hide headers and ids), A2A (the
// binding's literal JSON-RPC form, and message/send) or the AG-UI review stream under the
// grant's token. The same step sends the same bytes to both providers.

export interface Answer {
  readonly call: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly text: string;
  /** What the call sent (not compared: the same in both). */
  readonly input: unknown;
  /** The person's own call: it may name every claim of theirs, and is not compared. */
  readonly bySubject?: true;
}

/** Headers that say nothing about the profile: the rest must agree. */
const IGNORED_HEADERS = new Set(['date', 'connection', 'keep-alive']);

function headersOf(h: Headers): Record<string, string> {
  return Object.fromEntries([...h].filter(([k]) => !IGNORED_HEADERS.has(k)).sort());
}

/** A body with every JSON text inside it (MCP content, A2A parts) parsed, so ids compare alike. */
function parsedDeep(v: unknown): unknown {
  if (typeof v === 'string' && (v.startsWith('{') || v.startsWith('['))) {
    try {
      return parsedDeep(JSON.parse(v));
    } catch {
      return v;
    }
  }
  if (Array.isArray(v)) return v.map(parsedDeep);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, parsedDeep(x)]));
  }
  return v;
}

/** Whether a grant names the claim's namespace and key (the scope a proposal must keep to). */
function covers(grant: GrantRecord, c: Claim): boolean {
  if (!grant.allowed_namespaces.includes(c.namespace)) return false;
  return grant.allowed_claim_keys === undefined || grant.allowed_claim_keys.includes(qualifiedKey(c));
}

const key = (i: number) => qualifiedKey(POOL[i % POOL.length] as Claim);

/** The input a step sends, from the world (proposal ids, the counterpart grant, claim ids). */
function inputOf(s: Step, w: World): Record<string, unknown> {
  const claims = w.named.claims;
  const someClaim = claims[s.variant % claims.length]?.claim_id ?? 'ppx:claim:none';
  const hiddenOrSome = w.named.hidden[s.variant % Math.max(1, w.named.hidden.length)] ?? someClaim;
  const keys = s.keys.map(key);
  switch (s.op) {
    case 'get_profile_summary':
    case 'export_profile':
    case 'list_consent_grants':
    case 'list_granted_access':
      return {};
    case 'query_claims':
      return [
        {},
        { requested_namespaces: ['core'], min_confidence: s.value },
        { requested_keys: keys.length > 0 ? keys : ['novelty_tolerance'] },
        { requested_namespaces: ['fragrance', 'travel'] },
      ][s.variant] as Record<string, unknown>;
    case 'get_effective_profile':
      return [
        { context: {} },
        { context: { occasion: 'date_night', climate: 'hot_humid' } },
        { context: { occasion: 'office' } },
        { context: { climate: 'cold_dry' } },
      ][s.variant] as Record<string, unknown>;
    case 'list_audit_events':
      return { limit: String(1 + s.variant * 20) };
    case 'propose_updates': {
      // Variants 0 and 1 keep to the keys the grant covers (most then get through); 2 and 3 name
      // any key, the hidden claims' included.
      const inGrant = (i: number) => (w.grant ? covers(w.grant, POOL[i % POOL.length] as Claim) : true);
      const wanted = s.keys.length > 0 ? s.keys : [s.variant];
      const covered = POOL.map((_, i) => i).filter(inGrant);
      const named = s.variant >= 2 ? wanted : wanted.filter(inGrant).concat(covered.slice(0, 1)).slice(0, 3);
      return {
        claims: named.map((i) => {
          const c = POOL[i % POOL.length] as Claim;
          const value = typeof c.value === 'number' && !Number.isInteger(c.value) ? s.value : c.value;
          return proposed(c.namespace, c.key, value, {
            ...(c.value_type !== undefined ? { value_type: c.value_type } : {}),
            ...(s.variant % 2 === 1 ? { source: { kind: 'inferred', origin: 'session' } } : {}),
          });
        }),
      };
    }
    case 'confirm_updates':
      return [
        { decisions: w.proposals.splice(0, 1).map((id) => ({ proposal_id: id, action: 'confirm' })) },
        { decisions: [{ claim_id: hiddenOrSome, action: 'confirm' }] },
        { decisions: [{ claim_id: someClaim, action: 'reject' }] },
        { decisions: [{ proposal_id: 'ppx:proposal:none', action: 'confirm' }] },
      ][s.variant] as Record<string, unknown>;
    case 'list_claim_history':
      return { claim_id: s.variant % 2 === 0 ? hiddenOrSome : someClaim };
    case 'diff_profile':
      return { from: '2020-01-01T00:00:00Z' };
    case 'delete_claim':
      return { claim_id: hiddenOrSome };
    case 'list_cross_domain_reviews':
      return { status: ['all', 'pending', 'approved', 'rejected'][s.variant] as string };
    case 'derive_match':
      return {
        target: Object.fromEntries((keys.length > 0 ? keys : ['novelty_tolerance']).map((k) => [k, s.value])),
      };
    case 'derive_compatibility':
      return { counterpart_grant_id: w.counterpart?.grant_id ?? 'ppx:grant:none' };
    case 'derive_recommendation_basis':
      return { context: s.variant % 2 === 0 ? { occasion: 'date_night' } : {} };
    case 'revoke_consent_grant':
      return { grant_id: w.grant?.grant_id ?? 'ppx:grant:none' };
    default:
      return {};
  }
}

/** Runs one step in one world. Both worlds get the same bytes but for the ids each minted. */
export async function runStep(s: Step, w: World, index: number): Promise<Answer> {
  const label = `${s.surface} ${s.op} #${s.variant} (step ${index})`;
  if (s.op === 'mcp_resource') return mcpResource(s, w, label, index + 1);
  if (s.op === 'agui_review') return aguiReview(w, label);
  if (s.op === 'subject_confirm') return subjectConfirm(w, label);
  const input = inputOf(s, w);
  const op = CATALOG.find((o) => o.name === s.op);
  if (op === undefined) throw new Error(`no operation ${s.op}`);
  const answer =
    s.surface === 'http'
      ? await overHttp(w, op, input, label)
      : s.surface === 'mcp'
        ? await overMcp(w, label, toolCall(toolNameOf(op.name), input, index + 1))
        : s.surface === 'package'
          ? await overPackage(w, label, toolNameOf(op.name), input, s.variant, index + 1)
          : await overA2a(w, op.a2a?.skill ?? op.name, input, label, s.variant % 2 === 1, index + 1);
  remember(w, answer);
  return answer;
}

async function overHttp(
  w: World,
  op: (typeof CATALOG)[number],
  input: Record<string, unknown>,
  label: string,
): Promise<Answer> {
  const http = op.http;
  if (http === undefined) throw new Error(`${op.name} is not on HTTP`);
  let path = http.path.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(String(input[name])));
  if (http.input === 'query') path += `?${new URLSearchParams(input as Record<string, string>)}`;
  const r = await api(w.p.url, path, {
    method: http.method,
    token: w.tokens.http,
    ...(http.input === 'body' ? { body: input } : {}),
  });
  return answerOf(label, r, input);
}

function answerOf(
  call: string,
  r: { status: number; headers: Headers; text: string; json: unknown },
  input: unknown,
): Answer {
  return {
    call,
    status: r.status,
    headers: headersOf(r.headers),
    body: parsedDeep(r.json),
    text: r.text,
    input,
  };
}

async function overMcp(w: World, label: string, message: unknown): Promise<Answer> {
  return answerOf(label, await rawPost(w.p, w.tokens.mcp, message), message);
}

/** A read tool under the package token: one child, the other, or both (a fan-out). */
async function overPackage(
  w: World,
  label: string,
  tool: string,
  input: Record<string, unknown>,
  variant: number,
  id: number,
): Promise<Answer> {
  const [first, second = first] = w.children;
  const grantId = [[first, second], first, second, [second, first]][variant];
  const args = tool === toolNameOf('list_granted_access') ? input : { ...input, grant_id: grantId };
  const message = toolCall(tool, args, id);
  return answerOf(label, await rawPost(w.p, w.tokens.package, message), message);
}

function mcpResource(s: Step, w: World, label: string, id: number): Promise<Answer> {
  if (s.variant === 0) return overMcp(w, label, { jsonrpc: '2.0', id, method: 'resources/list' });
  const pairwise = w.grant ? w.p.deps.pairwise.profile(w.grant.profile_id, w.grant.grantee_id) : 'none';
  const kind = s.variant % 2 === 0 ? 'summary' : 'effective';
  return overMcp(w, label, {
    jsonrpc: '2.0',
    id,
    method: 'resources/read',
    params: { uri: `ppx://profile/${pairwise}/${kind}` },
  });
}

async function overA2a(
  w: World,
  skill: string,
  params: Record<string, unknown>,
  label: string,
  asMessage: boolean,
  id: number,
): Promise<Answer> {
  // The message id is the caller's: the same in both worlds (a UUID, so the comparison maps it).
  const messageId = `00000000-0000-4000-8000-${String(w.named.n * 100 + id).padStart(12, '0')}`;
  const body = asMessage
    ? {
        jsonrpc: '2.0',
        id,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId,
            role: 'user',
            parts: [{ kind: 'data', data: { method: skill, params } }],
          },
        },
      }
    : { jsonrpc: '2.0', id, method: skill, params };
  const r = await api(w.p.url, '/a2a', { token: w.tokens.a2a, body });
  return answerOf(label, r, body);
}

/** The person's review stream, opened with a grantee's token: refused alike, whatever the profile holds. */
async function aguiReview(w: World, label: string): Promise<Answer> {
  const input = {
    threadId: 't',
    runId: 'r',
    state: {},
    messages: [],
    tools: [],
    context: [],
    forwardedProps: { follow: false },
  };
  const r = await api(w.p.url, '/v1/agui/review', {
    token: w.tokens.http,
    body: input,
    headers: { accept: 'text/event-stream' },
  });
  return answerOf(label, r, input);
}

/** The person confirms the oldest proposal the grantee was told is pending. */
async function subjectConfirm(w: World, label: string): Promise<Answer> {
  const input = { decisions: w.proposals.splice(0, 1).map((id) => ({ proposal_id: id, action: 'confirm' })) };
  const r = await api(w.p.url, '/v1/profile/confirm-updates', { token: w.subjectToken, body: input });
  return { ...answerOf(label, r, input), bySubject: true };
}

/** Keeps the pending proposal ids an answer names, for a confirm_updates that follows. */
function remember(w: World, a: Answer): void {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o['proposal_id'] === 'string' && o['status'] === 'pending') found.push(o['proposal_id']);
      else for (const x of Object.values(o)) walk(x);
    }
  };
  walk(a.body);
  w.proposals.push(...found);
}
