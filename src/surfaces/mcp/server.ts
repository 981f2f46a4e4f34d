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
import type { z } from 'zod';
import { parseInput } from '../../model/validate.ts';
import type { Deps } from '../../operations/deps.ts';
import type { McpCaller } from '../../operations/mcp-caller.ts';
import { selectGrant } from '../../operations/mcp-caller.ts';
import { answerFailure, type TransportFailure, toolError, toolSuccess } from './errors.ts';
import { listResources, RESOURCE_TEMPLATES, readResource } from './resources.ts';
import { argumentsOf, listing } from './tools/contract.ts';
import { TOOLS, TOOLS_BY_NAME } from './tools/registry.ts';

/**
 * What one HTTP request carries into the handlers (through the SDK's `authInfo.extra`): the
 * authenticated caller, and a slot where a handler leaves a failure the HTTP layer must answer
 * with a status of its own (401/403, WIRE-NOTES §5) instead of the JSON-RPC result.
 */
export interface McpRequestContext {
  readonly caller: McpCaller;
  transportFailure?: TransportFailure;
}

export const SERVER_INFO = { name: 'ppx-provider', title: 'PPX preference profiles', version: '0.1.0' };

const INSTRUCTIONS =
  'Preference profiles shared by their owner under a consent grant. Start with ppx_list_consent_grants to see what the grant covers, then ppx_get_profile_summary, then read values with ppx_get_effective_profile (pass the current context). Propose changes only for what the user said; the owner may review them. If access has ended, do not retry: ask the user to reconnect.';

/** Built once per server in the pool: the listings are computed at start, never per request. */
export function createMcpServer(deps: Deps): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: {} },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LISTING }) as never);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(deps, contextOf(extra.authInfo?.extra), request.params.name, request.params.arguments),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [...RESOURCE_TEMPLATES],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) =>
    listResources(deps, contextOf(extra.authInfo?.extra).caller),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    readResource(deps, contextOf(extra.authInfo?.extra), request.params.uri),
  );
  return server;
}

const TOOL_LISTING = TOOLS.map(listing);
const ARGUMENTS = new Map<string, z.ZodObject>(TOOLS.map((t) => [t.name, argumentsOf(t)]));

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
  const parsed = parseInput(ARGUMENTS.get(name)!, args ?? {}, 'the tool input');
  if (!parsed.ok) return toolError(parsed.error);
  const { grant_id, ...input } = parsed.value as { grant_id?: string | string[] } & Record<string, unknown>;
  const caller = selectGrant(context.caller, grant_id);
  if (!caller.ok) return toolError(caller.error);
  const result = await tool.run(deps, caller.value, input);
  if (result.ok) return toolSuccess(result.value);
  const answer = answerFailure(result.error);
  if (answer.kind === 'tool') return answer.result;
  context.transportFailure = answer.transport;
  return toolError(result.error);
}
