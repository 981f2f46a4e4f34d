import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
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
import { listResources, RESOURCE_TEMPLATES, readResource } from './resources.ts';
import { listing, type McpTool, TOOLS, TOOLS_BY_NAME } from './tools.ts';

/**
 * What one HTTP request carries into the handlers (through the SDK's `authInfo.extra`): the
 * caller the front door authenticated. A failure the HTTP layer answers with a status of its own
 * (401/403, WIRE-NOTES §5) leaves a handler thrown (errors.ts#httpLevel), and the pool returns it.
 */
export interface McpRequestContext {
  readonly caller: TokenCaller;
}

const SERVER_INFO = { name: 'ppx-provider', title: 'PPX preference profiles', version: '0.1.0' };

const INSTRUCTIONS =
  'Preference profiles shared by their owner under consent grants. Start with ppx_list_granted_access to see which grants your token covers and what each allows; when it covers several, pass the grant_id of one (or a list, to read under each separately) to every other tool. Then ppx_get_profile_summary, then read values with ppx_get_effective_profile (pass the current context). Propose changes only for what the user said; the owner may review them. If access under a grant has ended, do not retry: ask the user.';

/** Built once per server in the pool: the listings are computed at start, never per request. */
export function createMcpServer(deps: Deps): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: {} },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LISTING }) as never);
  server.setRequestHandler(lenient(CallToolRequestSchema), (request, extra) => {
    // The SDK's own tools/call check has run (a bad name or arguments is -32602 Invalid params).
    const params = request.params as { name: string; arguments?: Record<string, unknown> };
    return callTool(deps, contextOf(extra.authInfo?.extra), params.name, params.arguments);
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [...RESOURCE_TEMPLATES],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) =>
    listResources(deps, contextOf(extra.authInfo?.extra).caller),
  );
  server.setRequestHandler(lenient(ReadResourceRequestSchema), (request, extra) => {
    const uri = (request.params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'resources/read needs params.uri, a string');
    return readResource(deps, contextOf(extra.authInfo?.extra).caller, uri);
  });
  return server;
}

/**
 * A request schema that takes any params. The SDK parses a request with the handler's schema
 * before anything else, and a failed parse is answered as -32603 Internal error with the raw
 * validation dump; with this, shape errors are answered by the checks below the parse, as
 * -32602 Invalid params.
 */
function lenient<S extends typeof CallToolRequestSchema | typeof ReadResourceRequestSchema>(schema: S) {
  return schema.extend({ params: z.unknown().optional() });
}

const TOOL_LISTING = TOOLS.map(listing);

function contextOf(extra: Record<string, unknown> | undefined): McpRequestContext {
  const context = extra?.['ppx'] as McpRequestContext | undefined;
  // The HTTP layer authenticates before the transport; a handler without a caller is a bug.
  if (!context) throw new Error('MCP request reached a handler without an authenticated caller');
  return context;
}

async function callTool(
  deps: Deps,
  context: McpRequestContext,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `there is no tool named "${name}"`);
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
    if (!only.caller.ok) return failed(token, only.caller.error);
    const result = await runUnder(deps, tool, only.id, only.caller.value, args);
    if (result.kind === 'input') return toolError(result.error, token);
    return result.kind === 'ok' ? toolSuccess(result.value) : failed(token, result.error);
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
      return failed(token, result.error);
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
function failed(token: TokenCaller['kind'], failure: PpxFailure): CallToolResult {
  const answer = answerFailure(failure, token);
  if (answer.kind === 'tool') return answer.result;
  throw httpLevel(answer.failure);
}
