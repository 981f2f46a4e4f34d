import { z } from 'zod';
import { officialSchemaId, toJsonSchema } from '../../model/json-schema.ts';
import { GrantIdArg } from '../../operations/callers/token-caller.ts';
import {
  CATALOG,
  type CatalogOperation,
  type McpBinding,
  toolNameOf,
} from '../../operations/catalog/index.ts';
import { compactInput, compactOutput } from './compact-schema.ts';
import { presentationSchema } from './presentation.ts';

// The MCP tools, generated from the operation catalog (bindings/mcp.md "Tool mapping", WIRE-NOTES
// §5): every operation with an MCP binding is one tool `ppx_<name>`, and nothing else is. The
// surface adds `grant_id`, publishes JSON Schema 2020-12, resolves the caller and maps results
// and failures in one place (errors.ts).

export interface McpTool {
  readonly name: `ppx_${string}`;
  readonly operation: CatalogOperation;
  readonly mcp: McpBinding;
  /**
   * `read`: discloses profile data; takes `grant_id` as one id or a list (a list fans out: one
   * sub-call per named grant). `write`: takes exactly one id. `discovery`: takes none, and runs
   * on the token as a whole (read profile §3).
   */
  readonly kind: 'read' | 'write' | 'discovery';
  /** The full argument schema: the operation's input plus `grant_id` (none for discovery). */
  readonly arguments: z.ZodObject;
  /** `grant_id` alone, checked before anything else (an empty object for discovery). */
  readonly grantIdArgument: z.ZodObject;
}

/** A tool's failure as it appears in `structuredContent.error` (WIRE-NOTES §5). */
const ToolError = z.strictObject({
  code: z.string(),
  message: z.string(),
  grant_id: z.string().optional(),
});

const SingleGrantId = z.string().min(1).max(300);

const GRANT_ID_HELP = 'From ppx_list_granted_access.';

function grantIdArgument(kind: 'read' | 'write'): z.ZodType {
  const arg = kind === 'read' ? GrantIdArg : SingleGrantId;
  return arg
    .optional()
    .describe(kind === 'read' ? `${GRANT_ID_HELP} A list reads under each.` : GRANT_ID_HELP);
}

function toolOf(operation: CatalogOperation, mcp: McpBinding): McpTool {
  const name = toolNameOf(operation.name);
  const input = operation.input;
  // Tools take named arguments (MCP `tools/call` params.arguments is an object).
  if (!(input instanceof z.ZodObject))
    throw new Error(`${name}: an MCP tool's input must be an object schema`);
  if (operation.description === undefined) throw new Error(`${name}: an MCP tool needs a description`);
  if (operation.caller === 'token') {
    return { name, operation, mcp, kind: 'discovery', arguments: input, grantIdArgument: z.strictObject({}) };
  }
  if (operation.caller !== 'caller' || mcp.grantIds === undefined) {
    throw new Error(`${name}: a tool acting under a grant must say how it takes grant_id`);
  }
  // The tool's grant_id is the operation's own when the operation names the grant it acts on.
  const own = mcp.grantIdIsTheCallsGrant ? input.omit({ grant_id: true }) : input;
  const kind = mcp.grantIds;
  const grantId = grantIdArgument(kind);
  return {
    name,
    operation,
    mcp,
    kind,
    arguments: own.extend({ grant_id: grantId }),
    grantIdArgument: z.object({ grant_id: grantId }),
  };
}

export const TOOLS: readonly McpTool[] = CATALOG.flatMap((op) => (op.mcp ? [toolOf(op, op.mcp)] : []));

export const TOOLS_BY_NAME: ReadonlyMap<string, McpTool> = new Map(TOOLS.map((t) => [t.name, t]));

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
  },
};

const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

/** `structuredContent.error`, as compact as the results it stands in for. */
const ERROR_SCHEMA = compactOutput(toJsonSchema(ToolError), ['code', 'message', 'grant_id']);

/** The tools/list entry, JSON Schema 2020-12 for both schemas, computed once at start. */
export function listing(tool: McpTool): Record<string, unknown> {
  const { operation } = tool;
  const { $schema: _full, ...full } = toJsonSchema(presentationSchema(operation.output));
  // What the tool declares, and the read profile's presentation wherever claims are listed.
  const presented = tool.mcp.shows.includes('claims') ? ['claim_instances', 'freshness'] : [];
  const members = [...tool.mcp.shows, ...presented];
  const description = describeOutput(operation);
  const data = { ...compactOutput(full, members), ...(description ? { description } : {}) };
  return {
    name: tool.name,
    title: operation.title,
    description: operation.description,
    // `title` is the tool's own (MCP 2025-06-18); repeating it in the annotations costs every session.
    annotations: tool.mcp.annotations,
    // MCP 2025-11-25 takes 2020-12 as the dialect of a schema without `$schema` (SEP-1613); the
    // output schema, which clients compile to validate results, still names it.
    inputSchema: compactInput(toJsonSchema(tool.arguments, 'input')),
    // One of `data` (success), `error` (a tool error) or `results` (a fan-out): SDK clients
    // validate structuredContent, even on isError results.
    outputSchema: {
      $schema: DRAFT_2020,
      type: 'object',
      properties: {
        data,
        error: ERROR_SCHEMA,
        ...(tool.kind === 'read' ? { results: FAN_OUT_RESULTS } : {}),
      },
    },
  };
}

/**
 * What `data` is, naming the official schema it follows by its URL (bindings/mcp.md): a client
 * that wants the whole contract has it, and the listing does not carry it nine times over.
 */
function describeOutput(operation: McpTool['operation']): string {
  if (!operation.follows) return '';
  const { object, at } = operation.follows;
  return `${at === undefined ? '' : `${at}: `}PPX ${object}, ${officialSchemaId(object)}`;
}
