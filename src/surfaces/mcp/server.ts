import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { PpxFailure, Result } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import {
  callerFor,
  type GrantCaller,
  type GrantIdArg,
  resolveGrantIds,
  type TokenCaller,
} from '../../operations/callers/token-caller.ts';
import { childId } from '../../operations/child-ids.ts';
import type { Deps } from '../../operations/deps.ts';
import { precheckGrant } from '../../operations/grants/access-check.ts';
import { presentForReadProfile } from '../../operations/reads/read-profile-presentation.ts';
import {
  answerFailure,
  errorObject,
  type FanOutEntry,
  fanOutResult,
  httpLevel,
  toolError,
  toolSuccess,
} from './errors.ts';
import { exchangeOf, type McpExchange } from './exchange.ts';
import { invalidParams } from './request-params.ts';
import { listResources, RESOURCE_TEMPLATES, readResource } from './resources.ts';
import { listing, type McpTool, TOOLS, TOOLS_BY_NAME } from './tools.ts';
import { followOrUnfollow } from './watched-resources.ts';

/** Who this server says it is, in `serverInfo` (initialize, server/discover, a listen's end). */
export const SERVER_INFO = { name: 'ppx-provider', title: 'PPX preference profiles', version: '0.1.0' };

const INSTRUCTIONS =
  'Preference profiles shared by their owner under consent grants. Start with ppx_list_granted_access to see which grants your token covers and what each allows; when it covers several, pass the grant_id of one (or a list, to read under each separately) to every other tool. Then ppx_get_profile_summary, then read values with ppx_get_effective_profile (pass the current context). Propose changes only for what the user said; the owner may review them. If access under a grant has ended, do not retry: ask the user.';

/**
 * The MCP server of both protocol generations: the SDK's low-level `Server` (not `McpServer`,
 * which checks tool arguments against their schemas before the handler runs, ahead of the
 * grant checks of WIRE-NOTES §2.7 and in its own words; docs/mcp.md). The listings are computed
 * once at start, never per request.
 */
export function createMcpServer(deps: Deps, hooks: ServerHooks = NO_HOOKS): Server {
  const server = new CheckedServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { subscribe: true } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler('tools/list', () => ({ tools: TOOL_LISTING }) as never);
  // tools/call and resources/read take any params: the shape is checked before dispatch
  // (CheckedServer) or by the handler, in words, as -32602 Invalid params.
  server.setRequestHandler('tools/call', { params: ANY_PARAMS }, (params, ctx) => {
    const call = params as { name: string; arguments?: Record<string, unknown> };
    return callTool(deps, exchangeOf(ctx.http?.authInfo), call.name, call.arguments);
  });
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [...RESOURCE_TEMPLATES],
  }));
  server.setRequestHandler('resources/list', (_request, ctx) =>
    listResources(deps, exchangeOf(ctx.http?.authInfo).caller),
  );
  server.setRequestHandler('resources/read', { params: ANY_PARAMS }, (params, ctx) => {
    const uri = (params as { uri?: unknown }).uri;
    if (typeof uri !== 'string')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'resources/read needs params.uri, a string');
    return readResource(deps, exchangeOf(ctx.http?.authInfo), uri);
  });
  // 2025-11-25 only: 2026-07-28 has `subscriptions/listen` (listen.ts) instead.
  server.setRequestHandler('resources/subscribe', { params: ANY_PARAMS }, async (params, ctx) => {
    const exchange = exchangeOf(ctx.http?.authInfo);
    await followOrUnfollow(deps, exchange, params, 'follow');
    await hooks.followed(exchange);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', { params: ANY_PARAMS }, async (params, ctx) => {
    const exchange = exchangeOf(ctx.http?.authInfo);
    await followOrUnfollow(deps, exchange, params, 'unfollow');
    await hooks.followed(exchange);
    return {};
  });
  return server;
}

/** What the server tells the rest of the surface. */
export interface ServerHooks {
  /** The caller's grant follows other resources now (legacy-stream.ts reads them again). */
  followed(exchange: McpExchange): Promise<void>;
}

const NO_HOOKS: ServerHooks = { followed: async () => undefined };

const ANY_PARAMS = z.record(z.string(), z.unknown());

/**
 * A `Server` that answers requests whose params do not have their method's shape itself, in
 * words (request-params.ts), before the SDK parses them: the SDK answers a failed parse as
 * -32603 Internal error with the validator's dump. The answer is sent after the transport's
 * dispatch, as a handler's would be, so both generations answer it alike (HTTP 200).
 */
class CheckedServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const dispatch = transport.onmessage;
    transport.onmessage = (message, extra) => {
      // The 2026-07-28 entry classifies each message (modern-leg.ts); the 2025 leg's transport
      // does not (legacy-leg.ts).
      const refused = invalidParams(message, extra?.classification?.era ?? 'legacy');
      if (refused === undefined) {
        dispatch?.(message, extra);
        return;
      }
      // The send fails when its id has no request left to answer (a batch naming one id twice,
      // the first already answered): that answer is dropped, as the SDK drops its own. Left
      // unhandled, the rejection would end the process.
      queueMicrotask(() => void transport.send(refused).catch(() => undefined));
    };
  }
}

const TOOL_LISTING = TOOLS.map(listing);

/** One `tools/call`, as the SDK's handler and the direct answer (direct-answer.ts) both run it. */
export async function callTool(
  deps: Deps,
  context: McpExchange,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `there is no tool named "${name}"`);
  const token = context.caller.kind;
  if (tool.kind === 'discovery') {
    const parsed = parseInput(tool.arguments, args ?? {}, 'the tool input');
    if (!parsed.ok) return toolError(parsed.error, token);
    const listed = await tool.operation.run(deps, context.caller, parsed.value);
    return listed.ok ? toolSuccess(listed.value) : toolError(listed.error, token);
  }
  // Which grant(s) first: every grant_id check happens before any read (read profile §3).
  const grantArg = parseInput(tool.grantIdArgument, pickGrantId(args), 'the tool input');
  if (!grantArg.ok) return toolError(grantArg.error, token);
  const named = resolveGrantIds(
    context.caller,
    grantArg.value.grant_id as GrantIdArg | undefined,
    tool.kind === 'write',
  );
  if (!named.ok) return toolError(named.error, token);
  // Then what each grant refuses whatever the arguments hold, then the arguments (WIRE-NOTES §2.7).
  const under: Under[] = [];
  for (const id of named.value.ids)
    under.push({ id, caller: await allowedUnder(deps, context.caller, tool, id) });
  if (!named.value.fanOut) {
    const only = under[0]!;
    if (!only.caller.ok) return failed(context, only.caller.error);
    const result = await runUnder(deps, tool, only.id, only.caller.value, args);
    if (result.kind === 'input') return toolError(result.error, token);
    return result.kind === 'ok' ? toolSuccess(result.value) : failed(context, result.error);
  }
  // Fan-out: one sub-call per named grant, each on its own; never a result across them.
  const results: FanOutEntry[] = [];
  for (const entry of under) {
    const result = entry.caller.ok
      ? await runUnder(deps, tool, entry.id, entry.caller.value, args)
      : fault(entry.caller.error);
    if (result.kind === 'input') return toolError(result.error, token);
    if (result.kind === 'ok') {
      results.push({ grant_id: childId(entry.id), data: result.value });
    } else if (token === 'grant' && answerFailure(result.error).kind === 'transport') {
      return failed(context, result.error);
    } else {
      results.push({ grant_id: childId(entry.id), error: errorObject(result.error, token) });
    }
  }
  return fanOutResult(results);
}

/** One named grant of a call: its caller, re-read now and past what its grant refuses, or why not. */
interface Under {
  readonly id: string;
  readonly caller: Result<GrantCaller>;
}

type SubResult =
  | { readonly kind: 'ok'; readonly value: unknown }
  | { readonly kind: 'input'; readonly error: PpxFailure }
  | { readonly kind: 'fault'; readonly error: PpxFailure };

const fault = (error: PpxFailure): SubResult => ({ kind: 'fault', error });

/** `grant_id` alone, as the arguments carry it (absent stays absent). */
function pickGrantId(args: Record<string, unknown> | undefined): Record<string, unknown> {
  return args !== undefined && 'grant_id' in args ? { grant_id: args['grant_id'] } : {};
}

/** The named grant's caller, re-read now, if its grant allows the operation whatever the input. */
async function allowedUnder(
  deps: Deps,
  mcp: TokenCaller,
  tool: McpTool,
  grantId: string,
): Promise<Result<GrantCaller>> {
  const caller = await callerFor(deps, mcp, grantId);
  if (!caller.ok) return caller;
  const allowed = await precheckGrant(deps, caller.value, tool.operation.grant, tool.operation.name);
  return allowed.ok ? caller : allowed;
}

/** One sub-call past its grant's checks: the arguments, then the operation; claims presented for MCP. */
async function runUnder(
  deps: Deps,
  tool: McpTool,
  grantId: string,
  caller: GrantCaller,
  args: Record<string, unknown> | undefined,
): Promise<SubResult> {
  const parsed = parseInput(tool.arguments, args ?? {}, 'the tool input');
  if (!parsed.ok) return { kind: 'input', error: parsed.error };
  const { grant_id: _named, ...input } = parsed.value as Record<string, unknown>;
  // An operation that names the grant it acts on gets the one this call acts under (tools.ts).
  const own = tool.mcp.grantIdIsTheCallsGrant ? { ...input, grant_id: grantId } : input;
  const result = await tool.operation.run(deps, caller, own);
  if (!result.ok) return fault(result.error);
  return { kind: 'ok', value: await presentForReadProfile(deps, caller, result.value) };
}

/** A single-child failure: a tool result, or (single-grant token) a 401/403 the HTTP layer answers. */
function failed(exchange: McpExchange, failure: PpxFailure): CallToolResult {
  const answer = answerFailure(failure, exchange.caller.kind);
  if (answer.kind === 'tool') return answer.result;
  throw httpLevel(exchange, answer.failure);
}
