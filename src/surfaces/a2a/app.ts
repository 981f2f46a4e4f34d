import {
  A2A_VERSION_HEADER,
  AgentCard,
  formatSSEErrorEvent,
  formatSSEEvent,
  HTTP_EXTENSION_HEADER,
  SSE_HEADERS,
} from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import type { PpxFailure } from '../../model/errors.ts';
import { authenticateA2a } from '../../operations/callers/a2a-caller.ts';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { precheckGrant } from '../../operations/grants/access-check.ts';
import { resourceMetadataUrl } from '../../operations/tokens/resources.ts';
import { noteCaller } from '../shared/access-log.ts';
import { limiterKey, readBearer } from '../shared/bearer.ts';
import { readJsonBody } from '../shared/body.ts';
import { boundedStream, type Outgoing } from '../shared/bounded-stream.ts';
import { clientAddress, limitRequest, RATE_LIMITED } from '../shared/rate-limit.ts';
import { StreamLimit } from '../shared/stream-limit.ts';
import { A2UI_EXTENSION, asksForA2ui } from './a2ui-parts.ts';
import { A2A_PROTOCOL, signedCard } from './card.ts';
import { A2UI_KEY, CALLER_KEY, PreferenceAgentExecutor } from './executor.ts';
import { signedLegacyCard } from './legacy-card.ts';
import { literalCall } from './literal.ts';
import { paramsProblem } from './params.ts';
import { type RpcError, rpcError, rpcErrorOf } from './rpc-errors.ts';
import { inputOf, namedSkill, SKILLS } from './skills.ts';
import { guarded } from './stream-guard.ts';
import { StoredTaskStore } from './task-store.ts';

// The A2A surface (WIRE-NOTES §6, bindings/a2a.md): the provider as a "preference agent" at
// POST /a2a, its card at /.well-known/agent-card.json. One JSON-RPC endpoint speaks A2A 1.0
// (SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask), the 0.3
// names (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe), and the
// binding's literal form (`"method": "get_effective_profile"`, result = the PPX body). Each
// request: rate limit → bearer token for `${base}/a2a` (401 with a challenge) → JSON-RPC shape →
// the skill and what the grant refuses whatever the params hold (403) → the params → the SDK's
// request handler, whose executor runs the catalog operation.

export interface A2aOptions {
  readonly bodyLimitBytes: number;
  readonly version: string;
  /** Where tasks are kept; the provider's store when absent. */
  readonly taskStore?: TaskStore;
  readonly log?: (message: string) => void;
}

/**
 * Task streams one grant may hold whose answers its reader has not taken yet (per instance):
 * an agent that never reads holds at most this many answers in the process (docs/a2a.md).
 */
export const MAX_STREAMS_PER_GRANT = 8;

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;

const V1_METHODS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'GetExtendedAgentCard',
]);
const V03_METHODS = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
]);
/** The methods answered with a stream. */
const STREAMS = new Set(['SendStreamingMessage', 'SubscribeToTask', 'message/stream', 'tasks/resubscribe']);
/** The methods whose params carry a message naming a skill. */
const SENDS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

export function mountA2a(app: App, deps: Deps, options: A2aOptions): void {
  const prm = resourceMetadataUrl(deps.provider, 'a2a');
  const log = options.log ?? (() => undefined);
  const executor = new PreferenceAgentExecutor(deps);
  const streams = new StreamLimit(MAX_STREAMS_PER_GRANT);
  // The card is signed once, when first asked for (signing needs the key; mounting is sync).
  let ready:
    | Promise<{
        json: string;
        legacyJson: string;
        v1: JsonRpcTransportHandler;
        v03: LegacyJsonRpcTransportHandler;
      }>
    | undefined;
  const surface = () => {
    ready ??= signedCard(deps, options.version).then(async (card) => {
      const handler = new DefaultRequestHandler(
        card,
        options.taskStore ?? new StoredTaskStore(deps),
        executor,
      );
      return {
        // Each version's card is exactly what its signatures cover (issue 22 item 5).
        json: JSON.stringify(AgentCard.toJSON(card)),
        legacyJson: JSON.stringify(await signedLegacyCard(deps, card)),
        v1: new JsonRpcTransportHandler(handler),
        v03: new LegacyJsonRpcTransportHandler(handler),
      };
    });
    return ready;
  };

  // A request without A2A-Version is a 0.3 one (A2A 1.0 versioning; the SDK's own card router
  // reads it so), so it gets the 0.3 card with the top-level `url` a 0.3 client reads; the
  // SDK's 1.0 client always names 1.0.
  app.get('/.well-known/agent-card.json', async (c) => {
    const cards = await surface();
    return c.body(wantsLegacyCard(c.req.header(A2A_VERSION_HEADER)) ? cards.legacyJson : cards.json, 200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'public, max-age=300',
      Vary: A2A_VERSION_HEADER,
    });
  });

  app.post('/a2a', async (c: Context<{ Bindings: HttpBindings }>) => {
    const extra: (readonly [string, string])[] = [];
    const response = await answer(c, extra);
    const out = new Response(response.body, response);
    for (const [k, v] of extra) out.headers.set(k, v);
    // Every answer is about a grant and a person's preferences: no cache may keep it.
    out.headers.set('Cache-Control', 'no-store');
    return out;
  });
  app.on(['GET', 'PUT', 'PATCH', 'DELETE'], '/a2a', () =>
    Response.json(
      {
        error: 'method_not_allowed',
        error_description: 'call the preference agent with POST /a2a (JSON-RPC 2.0)',
      },
      { status: 405, headers: { Allow: 'POST' } },
    ),
  );

  /** The answer; `extra` collects headers it adds (RateLimit-*, the extensions activated). */
  async function answer(c: Context<{ Bindings: HttpBindings }>, extra: (readonly [string, string])[]) {
    const token = readBearer(c.req.header('authorization'));
    const limited = await limitRequest(deps, 'api', () => limiterKey(token, clientAddress(c)));
    if (limited) extra.push(...limited.headers);
    if (limited?.allowed === false) return httpError(429, RATE_LIMITED);
    const caller = token?.ok === false ? token : await authenticateA2a(deps, token?.value);
    if (!caller.ok) {
      const challenge =
        token === undefined
          ? `Bearer resource_metadata="${prm}"`
          : bearerChallenge(prm, 'invalid_token', caller.error.description);
      return httpError(401, caller.error, challenge);
    }
    noteCaller(c.req.raw, 'grant');

    const body = await readJsonBody(
      {
        stream: c.env?.incoming ?? c.req.raw.body,
        contentLength: c.req.header('content-length'),
        contentType: c.req.header('content-type'),
      },
      options.bodyLimitBytes,
    );
    if (!body.ok) {
      if (body.error.code === 'payload_too_large') {
        return rpc(rpcError(null, -32600, `the request is larger than ${options.bodyLimitBytes} bytes`), 413);
      }
      if (body.error.code === 'unsupported_media_type')
        return rpc(rpcError(null, -32600, body.error.description), 415);
      return rpc(rpcError(null, -32700, body.error.description));
    }
    const request = body.value;
    if (Array.isArray(request))
      return rpc(rpcError(null, -32600, 'batch requests are not supported: send one call'));
    const shape = jsonRpcShape(request);
    if (shape.error) return rpc(shape.error);
    const { id, method, params } = shape;

    // The binding's literal form: the method is a skill, the result the PPX body.
    const skill = SKILLS.get(method);
    if (skill !== undefined) {
      const allowed = await precheckGrant(deps, caller.value, skill.operation.grant, skill.operation.name);
      if (!allowed.ok) return refusedByGrant(allowed.error);
      return rpc(await literalCall(deps, caller.value, skill, id, params));
    }
    const legacy = V03_METHODS.has(method);
    if (!legacy && !V1_METHODS.has(method)) {
      return rpc(
        rpcError(id, -32601, `there is no method "${method}" (the skills: ${[...SKILLS.keys()].join(', ')})`),
      );
    }
    const version = c.req.header(A2A_VERSION_HEADER);
    if (version !== undefined && version !== (legacy ? '0.3' : A2A_PROTOCOL)) {
      return rpc(
        rpcError(id, -32009, `A2A version ${version} is not spoken here with ${method} (1.0, and 0.3 names)`),
      );
    }
    if (SENDS.has(method)) {
      // WIRE-NOTES §2.7: which skill, then what the grant refuses whatever the params hold, then the params.
      const named = namedSkill((params as { message?: unknown } | undefined)?.message);
      if (!named.ok) return rpc(rpcErrorOf(id, named.error));
      const { operation } = named.value.skill;
      const allowed = await precheckGrant(deps, caller.value, operation.grant, operation.name);
      if (!allowed.ok) return refusedByGrant(allowed.error);
      const input = inputOf(named.value);
      if (!input.ok) return rpc(rpcErrorOf(id, input.error));
    }
    // The params as the SDK will read them (params.ts): it does not check them itself.
    const malformed = paramsProblem(method, params);
    if (malformed !== undefined) return rpc(rpcError(id, -32602, malformed));
    // A stream holds its answer until its reader takes it: a grant holds a few at once.
    let release = () => {};
    if (STREAMS.has(method)) {
      const taken = streams.take(caller.value.grant.grant_id);
      if (taken === undefined) {
        return httpError(429, {
          code: 'rate_limited',
          description: `this grant already has ${streams.max} task streams whose answers were not read yet; read or close one and try again`,
        });
      }
      release = taken;
    }
    const handlers = await surface();
    const drawn = asksForA2ui(
      c.req.header(HTTP_EXTENSION_HEADER) ?? c.req.header(`X-${HTTP_EXTENSION_HEADER}`),
    );
    // A2A extensions: the response names those it activated.
    if (drawn) extra.push([HTTP_EXTENSION_HEADER, A2UI_EXTENSION]);
    const context = callContext(caller.value, legacy ? '0.3' : A2A_PROTOCOL, drawn);
    let handled: Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
    try {
      handled = await (legacy ? handlers.v03 : handlers.v1).handle(
        request as Record<string, unknown>,
        context,
      );
    } catch (e) {
      release();
      throw e;
    }
    if (!isStream(handled)) {
      release();
      return rpc(handled);
    }
    return streamAnswer(guarded(deps, caller.value, handled, legacy ? '0.3' : A2A_PROTOCOL), id, {
      deps,
      release,
      log,
      ...(c.env?.outgoing ? { outgoing: c.env.outgoing } : {}),
    });
  }

  /** What the grant refuses whatever the params hold: HTTP 403 with a challenge, as MCP answers it. */
  function refusedByGrant(failure: PpxFailure): Response {
    if (failure.code === 'insufficient_scope') {
      return httpError(403, failure, bearerChallenge(prm, 'insufficient_scope', failure.description));
    }
    if (failure.code === 'invalid_token')
      return httpError(401, failure, bearerChallenge(prm, 'invalid_token', failure.description));
    return httpError(403, failure);
  }
}

/** The call's context for the SDK: the grant as its user (the owner of its tasks), and the caller. */
function callContext(caller: GrantCaller, version: string, a2ui: boolean): ServerCallContext {
  const grantId = caller.grant.grant_id;
  const user = { isAuthenticated: true, userName: grantId };
  const state = new Map<string, unknown>([
    [CALLER_KEY, caller],
    [A2UI_KEY, a2ui],
  ]);
  return new ServerCallContext({ user, requestedVersion: version, state });
}

function jsonRpcShape(
  body: unknown,
):
  | { error: RpcError; id?: never; method?: never; params?: never }
  | { error?: never; id: string | number | null; method: string; params: unknown } {
  if (typeof body !== 'object' || body === null)
    return { error: rpcError(null, -32600, 'a JSON-RPC request is an object') };
  const r = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? r.id : null;
  if (r.jsonrpc !== '2.0') return { error: rpcError(id, -32600, 'jsonrpc must be "2.0"') };
  // JSON-RPC 2.0 §4: an id is a string, a number or null. The SDK echoes whatever it is given,
  // and an object nested deep enough cannot be written back at all.
  if (r.id !== undefined && r.id !== null && typeof r.id !== 'string' && typeof r.id !== 'number') {
    return { error: rpcError(null, -32600, 'id must be a string, a number or null') };
  }
  if (typeof r.method !== 'string') return { error: rpcError(id, -32600, 'method must be a string') };
  if (
    r.params !== undefined &&
    (typeof r.params !== 'object' || r.params === null || Array.isArray(r.params))
  ) {
    return { error: rpcError(id, -32602, 'params must be an object') };
  }
  return { id, method: r.method, params: r.params };
}

/** Whether a card request speaks A2A 0.3: no A2A-Version, or one below 1.0. */
function wantsLegacyCard(version: string | undefined): boolean {
  const v = version?.trim() ?? '';
  return v === '' || /^0\./.test(v);
}

function isStream(x: unknown): x is AsyncGenerator<unknown, void, undefined> {
  return typeof x === 'object' && x !== null && Symbol.asyncIterator in x;
}

const UTF8 = new TextEncoder();

/**
 * A task stream as SSE, counted in ppx_open_streams while it lasts, its unread bytes bounded
 * (shared/bounded-stream.ts), and its place among the grant's streams released once nothing of
 * it is left in the process. Its first event is awaited before anything is answered: a stream
 * the SDK refuses at once (a finished task cannot be subscribed to) is then an ordinary JSON-RPC
 * error, never a 500 nor a dropped connection. A failure later ends the stream with an SSE
 * `error` event holding the JSON-RPC error.
 */
async function streamAnswer(
  events: AsyncGenerator<unknown, void, undefined>,
  id: string | number | null,
  options: { deps: Deps; release: () => void; log: (message: string) => void; outgoing?: Outgoing },
): Promise<Response> {
  const { deps, release, log } = options;
  let first: IteratorResult<unknown, void> | undefined;
  try {
    first = await events.next();
  } catch (e) {
    release();
    return rpc({ jsonrpc: '2.0', id, error: sdkError(e, log) });
  }
  const open = deps.metrics.openStreams.labels('a2a');
  open.inc();
  const bounds = {
    surface: 'a2a' as const,
    metrics: deps.metrics,
    onEnd: () => {
      open.dec();
      void events.return(undefined);
    },
    onFlushed: release,
    ...(options.outgoing ? { outgoing: options.outgoing } : {}),
  };
  const stream = boundedStream(bounds, (sink) => {
    void (async () => {
      try {
        // Not kept by this closure, which lives as long as the stream: the bytes are what wait.
        let next = first as IteratorResult<unknown, void>;
        first = undefined;
        while (!next.done) {
          if (!sink.write(UTF8.encode(formatSSEEvent(next.value)))) return; // cut, or the reader left
          next = await events.next();
        }
      } catch (e) {
        sink.write(UTF8.encode(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: sdkError(e, log) })));
      }
      sink.close();
    })();
  });
  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS } });
}

/**
 * An error the SDK threw, as the JSON-RPC error it maps it to; an unexpected one (`-32603`) says
 * nothing of its insides to the caller, and goes to the log (STYLE §5).
 */
function sdkError(e: unknown, log: (message: string) => void): { code: number; message: string } {
  const mapped = JsonRpcTransportHandler.mapToJSONRPCError(e);
  if (mapped.code !== -32603) return { code: mapped.code, message: mapped.message };
  log(`a2a stream failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return { code: -32603, message: 'the provider failed to answer this stream; it has been logged' };
}

function rpc(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** RFC 6750 §3 with the RFC 9728 §5.1 `resource_metadata` parameter. */
function bearerChallenge(prm: string, error: string, description: string): string {
  return `Bearer resource_metadata="${prm}", error="${error}", error_description="${description.replace(/["\\]/g, '')}"`;
}

/**
 * A refusal at the HTTP level: the OAuth-shaped body (never a JSON-RPC -32001, which the SDK
 * client would read as "task not found": PITFALLS).
 */
function httpError(status: number, failure: PpxFailure, challenge?: string): Response {
  const headers = new Headers({ 'Content-Type': 'application/json' });
  if (challenge !== undefined) headers.set('WWW-Authenticate', challenge);
  return new Response(JSON.stringify({ error: failure.code, error_description: failure.description }), {
    status,
    headers,
  });
}
