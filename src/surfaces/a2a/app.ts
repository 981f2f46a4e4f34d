import { A2A_VERSION_HEADER, AgentCard, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { DefaultRequestHandler, JsonRpcTransportHandler, type TaskStore } from '@a2a-js/sdk/server';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import type { PpxFailure } from '../../model/errors.ts';
import { authenticateA2a } from '../../operations/callers/a2a-caller.ts';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { precheckGrant } from '../../operations/grants/access-check.ts';
import { readJsonBody } from '../shared/body.ts';
import { type Refusal, refusalResponse } from '../shared/challenge.ts';
import { type Entered as EnteredAs, FrontDoor, type ProtectedResource } from '../shared/front-door.ts';
import { StreamLimit } from '../shared/stream-limit.ts';
import { builtComplete, completed, NO_STORE } from '../shared/with-headers.ts';
import { A2UI_EXTENSIONS, chosenA2ui } from './a2ui-parts.ts';
import { isStream, rpc, streamAnswer } from './answers.ts';
import { GrantCallContext } from './call-context.ts';
import { A2A_PROTOCOL, signedCard } from './card.ts';
import { directSendOf, sendDirectly } from './direct-send.ts';
import { PreferenceAgentExecutor } from './executor.ts';
import { jsonRpcShape, type RpcCall, SENDS, STREAMS, V1_METHODS, V03_METHODS } from './json-rpc.ts';
import { signedLegacyCard } from './legacy-card.ts';
import { literalCall } from './literal.ts';
import { paramsProblem } from './params.ts';
import { rpcError, rpcErrorOf, versionNotSupported } from './rpc-errors.ts';
import { type Asked, askedOf, namedSkill, SKILLS } from './skills.ts';
import { guarded } from './stream-guard.ts';
import { StoredTaskStore } from './task-store.ts';

// The A2A surface (WIRE-NOTES §6, bindings/a2a.md): the provider as a "preference agent" at
// POST /a2a, its card at /.well-known/agent-card.json. One JSON-RPC endpoint speaks A2A 1.0
// (SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask), the 0.3
// names (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe), and the
// binding's literal form (`"method": "get_effective_profile"`, result = the PPX body). Each
// request is a pipeline of named steps: the front door (rate limit, bearer token for
// `${base}/a2a`: a 401 with a challenge) → the JSON-RPC call → the method → for a send, the skill
// and what the grant refuses whatever the params hold (403), then the params, parsed once → the
// SDK's request handler, whose executor runs the catalog operation.

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

/** Who a token names on /a2a: one grant (operations/a2a-caller.ts). */
const A2A: ProtectedResource<GrantCaller> = {
  kind: 'a2a',
  authenticate: authenticateA2a,
  kindOf: () => 'grant',
};

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;
type A2aContext = Context<{ Bindings: HttpBindings }>;
/** A call past the front door: its grant, and how to refuse it in the scheme it used. */
type Entered = EnteredAs<GrantCaller>;

/** What the SDK needs, made once the card is signed (signing needs the key; mounting is sync). */
interface Handlers {
  /** Where the SDK's handler keeps tasks; a direct send (direct-send.ts) saves its task there too. */
  readonly store: TaskStore;
  readonly json: string;
  readonly legacyJson: string;
  readonly v1: JsonRpcTransportHandler;
  readonly v03: LegacyJsonRpcTransportHandler;
}

/** One mounted surface: what every request of it shares. */
interface Surface {
  readonly deps: Deps;
  readonly options: A2aOptions;
  readonly door: FrontDoor<GrantCaller>;
  readonly streams: StreamLimit;
  readonly log: (message: string) => void;
  handlers(): Promise<Handlers>;
}

export function mountA2a(app: App, deps: Deps, options: A2aOptions): void {
  const surface = surfaceOf(deps, options);
  // A request without A2A-Version is a 0.3 one (A2A 1.0 versioning; the SDK's own card router
  // reads it so), so it gets the 0.3 card with the top-level `url` a 0.3 client reads; the
  // SDK's 1.0 client always names 1.0.
  app.get('/.well-known/agent-card.json', async (c) => {
    const cards = await surface.handlers();
    return c.body(wantsLegacyCard(c.req.header(A2A_VERSION_HEADER)) ? cards.legacyJson : cards.json, 200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'public, max-age=300',
      Vary: A2A_VERSION_HEADER,
    });
  });
  app.post('/a2a', async (c: A2aContext) => {
    const extra: (readonly [string, string])[] = [];
    const response = await answer(surface, c, extra);
    // Every answer is about a grant and a person's preferences: no cache may keep it.
    return completed(response, [...extra, NO_STORE]);
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
}

function surfaceOf(deps: Deps, options: A2aOptions): Surface {
  const executor = new PreferenceAgentExecutor(deps);
  let ready: Promise<Handlers> | undefined;
  return {
    deps,
    options,
    door: new FrontDoor(deps, A2A),
    streams: new StreamLimit(MAX_STREAMS_PER_GRANT),
    log: options.log ?? (() => undefined),
    handlers: () => {
      ready ??= signedCard(deps, options.version).then(async (card) => {
        const store = options.taskStore ?? new StoredTaskStore(deps);
        const handler = new DefaultRequestHandler(card, store, executor);
        return {
          store,
          // Each version's card is exactly what its signatures cover (issue 22 item 5).
          json: JSON.stringify(AgentCard.toJSON(card)),
          legacyJson: JSON.stringify(await signedLegacyCard(deps, card)),
          v1: new JsonRpcTransportHandler(handler),
          v03: new LegacyJsonRpcTransportHandler(handler),
        };
      });
      return ready;
    },
  };
}

/** The answer; `extra` collects headers it adds (RateLimit-*, the extensions activated). */
async function answer(s: Surface, c: A2aContext, extra: (readonly [string, string])[]): Promise<Response> {
  const entry = await s.door.enter(s.deps, c, 'required');
  extra.push(...entry.headers);
  if (!entry.ok) return refused(entry.refusal);
  const caller = entry.caller;

  const read = await readCall(c, s.options.bodyLimitBytes);
  if (read instanceof Response) return read;
  const { request, call } = read;

  // The binding's literal form: the method is a skill, the result the PPX body.
  const literal = SKILLS.get(call.method);
  if (literal !== undefined) {
    const allowed = await precheckGrant(s.deps, caller, literal.operation.grant, literal.operation.name);
    if (!allowed.ok) return refusedByGrant(entry, allowed.error);
    return rpc(await literalCall(s.deps, caller, literal, call.id, call.params));
  }
  const version = methodVersion(c, call);
  if (version instanceof Response) return version;

  // WIRE-NOTES §2.7: which skill, then what the grant refuses whatever the params hold, then the params.
  const asked = SENDS.has(call.method) ? await askedBy(s, entry, call) : undefined;
  if (asked instanceof Response) return asked;
  // The params as the SDK will read them (params.ts): it does not check them itself.
  const malformed = paramsProblem(call.method, call.params);
  if (malformed !== undefined) return rpc(rpcError(call.id, -32602, malformed));

  // A stream holds its answer until its reader takes it: a grant holds a few at once.
  const release = STREAMS.has(call.method) ? s.streams.take(caller.grant.grant_id) : () => {};
  if (release === undefined) {
    return refused(
      entry.refuse({
        code: 'rate_limited',
        description: `this grant already has ${s.streams.max} task streams whose answers were not read yet; read or close one and try again`,
      }),
    );
  }
  const drawn = chosenA2ui(
    c.req.header(HTTP_EXTENSION_HEADER) ?? c.req.header(`X-${HTTP_EXTENSION_HEADER}`),
    a2uiCapabilitiesOf(call),
  );
  // A2A extensions: the response names those it activated (one A2UI version at most).
  if (drawn !== undefined) extra.push([HTTP_EXTENSION_HEADER, A2UI_EXTENSIONS[drawn]]);
  const context = new GrantCallContext(caller, version, drawn, asked);
  return dispatch(s, c, request, call, context, release, extra);
}

/** A send's `message.metadata.a2uiClientCapabilities` (A2UI v0.9 extension), when it has one. */
function a2uiCapabilitiesOf(call: RpcCall): unknown {
  const message = (call.params as { message?: { metadata?: unknown } } | undefined)?.message;
  const metadata = message?.metadata;
  return typeof metadata === 'object' && metadata !== null
    ? (metadata as Record<string, unknown>)['a2uiClientCapabilities']
    : undefined;
}

/** The body as one JSON-RPC call, or the JSON-RPC error (or 413/415) that answers it. */
async function readCall(
  c: A2aContext,
  limit: number,
): Promise<Response | { request: Record<string, unknown>; call: RpcCall }> {
  const body = await readJsonBody(
    {
      stream: c.env?.incoming ?? c.req.raw.body,
      contentLength: c.req.header('content-length'),
      contentType: c.req.header('content-type'),
    },
    limit,
  );
  if (!body.ok) {
    if (body.error.code === 'payload_too_large') {
      return rpc(rpcError(null, -32600, `the request is larger than ${limit} bytes`), 413);
    }
    if (body.error.code === 'unsupported_media_type')
      return rpc(rpcError(null, -32600, body.error.description), 415);
    return rpc(rpcError(null, -32700, body.error.description));
  }
  if (Array.isArray(body.value))
    return rpc(rpcError(null, -32600, 'batch requests are not supported: send one call'));
  const shape = jsonRpcShape(body.value);
  if ('error' in shape) return rpc(shape.error);
  return { request: body.value as Record<string, unknown>, call: shape.call };
}

/** The A2A version a method is spoken in (1.0, or 0.3 for its names), or the error for another. */
function methodVersion(c: A2aContext, call: RpcCall): Response | string {
  const legacy = V03_METHODS.has(call.method);
  if (!legacy && !V1_METHODS.has(call.method)) {
    return rpc(
      rpcError(
        call.id,
        -32601,
        `there is no method "${call.method}" (the skills: ${[...SKILLS.keys()].join(', ')})`,
      ),
    );
  }
  const spoken = legacy ? '0.3' : A2A_PROTOCOL;
  const version = c.req.header(A2A_VERSION_HEADER);
  // A2A 1.0.1 §3.6: versions are Major.Minor; a patch number is not considered in negotiation.
  if (version !== undefined && majorMinor(version) !== spoken) {
    return rpc(
      versionNotSupported(
        call.id,
        `A2A version ${version} is not spoken here with ${call.method} (1.0, and 0.3 names)`,
      ),
    );
  }
  return spoken;
}

/** `1.0.1` -> `1.0`; anything else as sent. */
function majorMinor(version: string): string {
  return /^\s*(\d+\.\d+)(?:\.\d+)?\s*$/.exec(version)?.[1] ?? version;
}

/** A send's skill and input, parsed once for the executor, after what the grant refuses (§2.7). */
async function askedBy(s: Surface, entry: Entered, call: RpcCall): Promise<Response | Asked> {
  const { caller } = entry;
  const named = namedSkill((call.params as { message?: unknown } | undefined)?.message);
  if (!named.ok) return rpc(rpcErrorOf(call.id, named.error));
  const { operation } = named.value.skill;
  const allowed = await precheckGrant(s.deps, caller, operation.grant, operation.name);
  if (!allowed.ok) return refusedByGrant(entry, allowed.error);
  const asked = askedOf(named.value);
  return asked.ok ? asked.value : rpc(rpcErrorOf(call.id, asked.error));
}

/** The SDK's request handler answers the call; a stream's place is released once nothing of it is left. */
async function dispatch(
  s: Surface,
  c: A2aContext,
  request: Record<string, unknown>,
  call: RpcCall,
  called: GrantCallContext,
  release: () => void,
  extra: readonly (readonly [string, string])[],
): Promise<Response> {
  const handlers = await s.handlers();
  let context = called;
  // A plain blocking SendMessage is answered here, as the SDK would (direct-send.ts).
  const direct = directSendOf(call, context);
  if (direct !== undefined) {
    const sent = await sendDirectly(s.deps, handlers.store, call, direct, context, [...extra, NO_STORE]);
    if ('response' in sent) {
      release();
      return builtComplete(sent.response);
    }
    // The skill threw: the SDK answers that, as it always has.
    context = context.failedWith(sent.thrown);
  }
  const legacy = V03_METHODS.has(call.method);
  let handled: Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
  try {
    handled = await (legacy ? handlers.v03 : handlers.v1).handle(request, context);
  } catch (e) {
    release();
    throw e;
  }
  if (!isStream(handled)) {
    release();
    return rpc(handled);
  }
  return streamAnswer(guarded(s.deps, context.caller, handled, legacy ? '0.3' : A2A_PROTOCOL), call.id, {
    deps: s.deps,
    release,
    log: s.log,
    ...(c.env?.outgoing ? { outgoing: c.env.outgoing } : {}),
  });
}

/**
 * What the grant refuses whatever the params hold, at the HTTP level as MCP answers it: never a
 * JSON-RPC -32001, which the SDK client would read as "task not found" (PITFALLS).
 */
function refusedByGrant(entry: Entered, failure: PpxFailure): Response {
  return refused(entry.refuse(failure));
}

/** A refusal in the OAuth-shaped body. */
function refused(refusal: Refusal): Response {
  const { code, description } = refusal.failure;
  return refusalResponse(refusal, { error: code, error_description: description });
}

/** Whether a card request speaks A2A 0.3: no A2A-Version, or one below 1.0. */
function wantsLegacyCard(version: string | undefined): boolean {
  const v = version?.trim() ?? '';
  return v === '' || /^0\./.test(v);
}
