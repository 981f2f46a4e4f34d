import { z } from 'zod';
import type { Result } from '../../../model/errors.ts';
import { toJsonSchema } from '../../../model/json-schema.ts';
import type { Caller } from '../../../operations/caller.ts';
import type { Deps } from '../../../operations/deps.ts';
import { GrantIdArg, type McpCaller } from '../../../operations/mcp-caller.ts';
import { presentationSchema } from '../presentation.ts';

// The one shape of an MCP tool (STYLE §2): each file in this folder exports one `McpTool`, and
// registry.ts lists them. A tool names the operation it calls and that operation's zod input and
// output; the surface adds `grant_id`, publishes JSON Schema 2020-12, resolves the caller and
// maps results and failures in one place (../errors.ts).

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

export interface McpTool {
  readonly name: `ppx_${string}`;
  readonly title: string;
  /** What the tool does, when to call it and what comes back, for a model to act on. */
  readonly description: string;
  readonly annotations: ToolAnnotations;
  /** The operation's input (a strict object, without `grant_id`). */
  readonly input: z.ZodObject;
  /** The PPX response the operation returns; published as `structuredContent.data`. */
  readonly output: z.ZodType;
  /**
   * `read`: discloses profile data; takes `grant_id` as one id or a list (a list fans out: one
   * sub-call per named grant). `write`: takes exactly one id. Both declare `grant_id`.
   */
  readonly kind: 'read' | 'write';
  run(deps: Deps, caller: Caller, input: unknown): Promise<Result<unknown>>;
}

/**
 * The child-discovery tool (read profile §3): it takes no `grant_id` and runs on the token as a
 * whole, listing what it covers.
 */
export interface DiscoveryTool extends Omit<McpTool, 'kind' | 'run'> {
  readonly kind: 'discovery';
  run(deps: Deps, mcp: McpCaller): Promise<Result<unknown>>;
}

export type AnyTool = McpTool | DiscoveryTool;

/** A tool's failure as it appears in `structuredContent.error` (WIRE-NOTES §5). */
export const ToolError = z.strictObject({
  code: z.string(),
  message: z.string(),
  grant_id: z.string().optional(),
});

const SingleGrantId = z.string().min(1).max(300);

const GRANT_ID_HELP =
  'Grant to act under, from ppx_list_granted_access; required when the token covers several.';

export function grantIdArgument(tool: McpTool): z.ZodType {
  const arg = tool.kind === 'read' ? GrantIdArg : SingleGrantId;
  return arg
    .optional()
    .describe(
      tool.kind === 'read' ? `${GRANT_ID_HELP} A list reads under each separately (results).` : GRANT_ID_HELP,
    );
}

/** The full argument schema: the operation's input plus `grant_id` (none for discovery). */
export function argumentsOf(tool: AnyTool): z.ZodObject {
  return tool.kind === 'discovery' ? tool.input : tool.input.extend({ grant_id: grantIdArgument(tool) });
}

/** A fan-out entry: `{grant_id, data}` or `{grant_id, error}`, pointing at the single-result members. */
const FAN_OUT_RESULTS = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      grant_id: { type: 'string' },
      data: { $ref: '#/properties/data' },
      error: { $ref: '#/properties/error' },
    },
    required: ['grant_id'],
    minProperties: 2,
    maxProperties: 2,
    additionalProperties: false,
  },
};

/** The tools/list entry, JSON Schema 2020-12 for both schemas, computed once at start. */
export function listing(tool: AnyTool): Record<string, unknown> {
  const data = presentationSchema(tool.output);
  const output = toJsonSchema(z.strictObject({ data: data.optional(), error: ToolError.optional() }));
  if (tool.kind === 'read') {
    output['properties'] = { ...(output['properties'] as object), results: FAN_OUT_RESULTS };
  }
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    annotations: { title: tool.title, ...tool.annotations },
    inputSchema: toJsonSchema(argumentsOf(tool), 'input'),
    // Exactly one of `data` (success), `error` (a tool error) or `results` (a fan-out): SDK
    // clients validate structuredContent, even on isError results.
    outputSchema: { ...output, minProperties: 1, maxProperties: 1 },
  };
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export const EMPTY_INPUT = z.strictObject({});
