import { z } from 'zod';
import type { Result } from '../../../model/errors.ts';
import { toJsonSchema } from '../../../model/json-schema.ts';
import type { Caller } from '../../../operations/caller.ts';
import type { Deps } from '../../../operations/deps.ts';
import { GrantIdArg } from '../../../operations/mcp-caller.ts';

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
   * `read`: discloses profile data; takes `grant_id` as one id or a list (a list fans out over a
   * package's children, next slice). `write`: takes exactly one id. Both declare `grant_id`.
   */
  readonly kind: 'read' | 'write';
  run(deps: Deps, caller: Caller, input: unknown): Promise<Result<unknown>>;
}

/** A tool's failure as it appears in `structuredContent.error` (WIRE-NOTES §5). */
export const ToolError = z.strictObject({
  code: z.string(),
  message: z.string(),
  grant_id: z.string().optional(),
});

const SingleGrantId = z.string().min(1).max(300);

export function grantIdArgument(tool: McpTool): z.ZodType {
  const arg = tool.kind === 'read' ? GrantIdArg : SingleGrantId;
  return arg
    .optional()
    .describe(
      tool.kind === 'read'
        ? 'The grant to act under. Optional with a token for one grant (it must then name that grant); a list of ids reads under each one separately.'
        : 'The grant to act under. Optional with a token for one grant (it must then name that grant).',
    );
}

/** The full argument schema: the operation's input plus `grant_id`. */
export function argumentsOf(tool: McpTool): z.ZodObject {
  return tool.input.extend({ grant_id: grantIdArgument(tool) });
}

/** The tools/list entry, JSON Schema 2020-12 for both schemas, computed once at start. */
export function listing(tool: McpTool): Record<string, unknown> {
  const output = toJsonSchema(z.strictObject({ data: tool.output.optional(), error: ToolError.optional() }));
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    annotations: { title: tool.title, ...tool.annotations },
    inputSchema: toJsonSchema(argumentsOf(tool), 'input'),
    // Exactly one of `data` (success) or `error` (a tool error): SDK clients validate both.
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
