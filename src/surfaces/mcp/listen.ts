import { specTypeSchemas } from '@modelcontextprotocol/server';
import type { TokenCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { watchGrant } from '../../operations/grants/watch-grant.ts';
import type { Outgoing } from '../shared/bounded-stream.ts';
import type { StreamLimit } from '../shared/stream-limit.ts';
import { noticeStream, SSE_HEADERS, sseFrame } from './notice-stream.ts';
import { MAX_WATCHED_URIS, watchable } from './watched-resources.ts';

// MCP 2026-07-28 `subscriptions/listen` for grantees (issue 25 item 2, docs/subscriptions.md).
// The SDK's own listen router fans one in-process bus out to every stream and honors any URI a
// client names; a grantee must hear only about what its own grant reads, and its stream must end
// when its grant does. So this route answers the listen requests itself, after the front door,
// and leaves every other request (and any listen it does not recognise as well-formed) to the
// SDK, which refuses those in its own words (modern-leg.ts declares no room for its router).

const MODERN = '2026-07-28';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

export interface ListenOptions {
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Shared with 2025-11-25's streams (legacy-stream.ts): one bound on a grant's streams. */
  readonly limit: StreamLimit;
}

/** A listen request as it came: its id and what it asks to be told about, or that it is malformed. */
type ListenCall =
  | { readonly id: string | number; readonly uris: readonly string[] | undefined }
  | { readonly id: string | number; readonly invalid: true };

export class ListenRoute {
  readonly #deps: Deps;
  readonly #options: ListenOptions;
  readonly #limit: StreamLimit;

  constructor(deps: Deps, options: ListenOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#limit = options.limit;
  }

  /**
   * The listen request `request` carries (its body as read once by modern-leg.ts#routeMcp), or
   * undefined to leave it to the SDK. Only a request whose standard headers name
   * `subscriptions/listen` and this revision is looked at: every other request pays nothing here.
   */
  recognise(request: Request, body: unknown): ListenCall | undefined {
    if (request.headers.get('mcp-method') !== 'subscriptions/listen') return undefined;
    if (request.headers.get('mcp-protocol-version') !== MODERN) return undefined;
    if (!isListenEnvelope(body)) return undefined;
    const checked = specTypeSchemas.SubscriptionsListenRequest['~standard'].validate(body);
    if (checked instanceof Promise || checked.issues !== undefined) return { id: body.id, invalid: true };
    const notifications = (body.params as { notifications: { resourceSubscriptions?: string[] } })
      .notifications;
    const uris = notifications.resourceSubscriptions;
    if (uris !== undefined && uris.length > MAX_WATCHED_URIS) return { id: body.id, invalid: true };
    return { id: body.id, uris };
  }

  /** Answers a recognised listen request of `caller`. */
  async serve(caller: TokenCaller, call: ListenCall, outgoing?: Outgoing): Promise<Response> {
    if ('invalid' in call) {
      return jsonRpcError(
        call.id,
        -32602,
        `Invalid params: 'notifications' is required and must be a valid SubscriptionFilter, naming at most ${MAX_WATCHED_URIS} resources`,
      );
    }
    const scope = await watchable(this.#deps, caller, call.uris ?? []);
    const views = scope?.views ?? [];
    const subscriptionId = call.id;
    const honored = views.length > 0 ? { resourceSubscriptions: views.map((v) => v.id) } : {};
    const first = {
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: honored, _meta: { [SUBSCRIPTION_ID]: subscriptionId } },
    };
    const last = {
      id: subscriptionId,
      result: {
        resultType: 'complete',
        _meta: { [SUBSCRIPTION_ID]: subscriptionId, [SERVER_INFO]: this.#options.serverInfo },
      },
    };
    if (scope === undefined || views.length === 0) {
      // Nothing to be told about: acknowledged, and ended at once (as the SDK's router does).
      return new Response(sseFrame(first) + sseFrame(last), { status: 200, headers: SSE_HEADERS });
    }
    const release = this.#limit.take(scope.caller.grant.grant_id);
    if (release === undefined) return jsonRpcError(subscriptionId, -32603, 'Subscription limit reached');
    try {
      const watch = await watchGrant(this.#deps, scope.caller, views, {
        tokenExpiresAt: caller.tokenExpiresAt,
      });
      const stream = noticeStream(
        this.#deps,
        watch,
        {
          first,
          updated: (uri) => ({
            method: 'notifications/resources/updated',
            params: { uri, _meta: { [SUBSCRIPTION_ID]: subscriptionId } },
          }),
          last,
        },
        {
          onEnd: release,
          ...(outgoing ? { outgoing } : {}),
        },
      );
      return new Response(stream, { status: 200, headers: SSE_HEADERS });
    } catch (error) {
      release();
      throw error;
    }
  }
}

function isListenEnvelope(body: unknown): body is { id: string | number; params?: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  if (b['jsonrpc'] !== '2.0' || b['method'] !== 'subscriptions/listen') return false;
  if (typeof b['id'] !== 'string' && typeof b['id'] !== 'number') return false;
  const meta = (b['params'] as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[PROTOCOL_VERSION] === MODERN;
}

function jsonRpcError(id: string | number | null, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id }, { status: 200 });
}
