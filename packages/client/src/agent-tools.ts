import type { Grant } from './grant.ts';
import type { Result } from './result.ts';
import type { Context, EffectiveRequest, ProposedClaim, QueryRequest } from './types.ts';

// A grant as tools an agent can call (issue 28 item 3): plain JSON Schema tools, in the shapes the
// OpenAI and Anthropic tool formats and the Vercel AI SDK take, each running the grant's own read
// or write. What a tool answers is what the provider answered, or its refusal as
// `{error: {code, description}}`: the model reads the refusal and can say it in words.
//
//   const tools = agentTools(grant);
//   const openai = toOpenAITools(tools);            // tools: openai, then
//   const answer = await runTool(tools, call.name, call.arguments);

/** A JSON Schema 2020-12 object schema, as the tool formats take it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface AgentTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  /** Runs the tool with the model's arguments; answers JSON the model can read. */
  execute(args: unknown): Promise<unknown>;
}

export interface AgentToolOptions {
  /** Offer the suggestion tool (write-back); off by default: an agent reads unless told otherwise. */
  readonly write?: boolean;
}

const CONTEXT: JsonSchema = {
  type: 'object',
  description:
    'The situation, as context keys and values (for example {"occasion": "date_night", "climate": "hot_humid"}): preferences that change with the situation are adjusted to it.',
  additionalProperties: { type: ['string', 'number', 'boolean'] },
};

const NAMESPACES: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  description:
    'Only these groups of preferences (for example ["fragrance", "travel"]); all the grant allows when absent.',
};

/** The tools of one grant: read the profile (effective, query, summary), and suggest changes if asked. */
export function agentTools(grant: Grant, options: AgentToolOptions = {}): AgentTool[] {
  const tools: AgentTool[] = [
    {
      name: 'ppx_get_effective_profile',
      description:
        "The person's preferences the app may see, adjusted to a situation. Use it before recommending something to them.",
      parameters: {
        type: 'object',
        properties: { context: CONTEXT, namespaces: NAMESPACES },
        additionalProperties: false,
      },
      execute: async (args) => {
        const a = objectOf(args);
        const options: Omit<EffectiveRequest, 'context'> = Array.isArray(a['namespaces'])
          ? { requested_namespaces: a['namespaces'] as string[] }
          : {};
        return answer(await grant.effective(a['context'] as Context | undefined, options));
      },
    },
    {
      name: 'ppx_query_preferences',
      description:
        'Some of the person\'s preferences: by group, by key, by how sure the provider is (min_confidence, 0 to 1), or only those the person said themselves (provenance ["user_stated"]).',
      parameters: {
        type: 'object',
        properties: {
          namespaces: NAMESPACES,
          keys: {
            type: 'array',
            items: { type: 'string' },
            description: 'Only these keys (for example ["fragrance.note_aversions"]).',
          },
          min_confidence: { type: 'number', minimum: 0, maximum: 1 },
          provenance: {
            type: 'array',
            items: { enum: ['user_stated', 'observed', 'imported', 'inferred', 'derived_aggregate'] },
          },
        },
        additionalProperties: false,
      },
      execute: async (args) => {
        const a = objectOf(args);
        const query: QueryRequest = {
          ...(Array.isArray(a['namespaces']) ? { requested_namespaces: a['namespaces'] as string[] } : {}),
          ...(Array.isArray(a['keys']) ? { requested_keys: a['keys'] as string[] } : {}),
          ...(typeof a['min_confidence'] === 'number' ? { min_confidence: a['min_confidence'] } : {}),
          ...(Array.isArray(a['provenance'])
            ? { provenance: a['provenance'] as QueryRequest['provenance'] }
            : {}),
        };
        return answer(await grant.query(query));
      },
    },
    {
      name: 'ppx_get_preference_summary',
      description:
        'Which kinds of preferences the person has shared with the app (groups, keys, where each came from), without their values.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      execute: async () => answer(await grant.summary()),
    },
  ];
  if (options.write === true) {
    tools.push({
      name: 'ppx_suggest_preference_change',
      description:
        "Suggest a change to the person's preferences (PPX claims). Depending on what the person allowed it is applied, waits for them to review it, or is refused: the answer says which.",
      parameters: {
        type: 'object',
        properties: {
          claims: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              description: 'A PPX claim: type, namespace, key, value, confidence and source {kind, origin}.',
              required: ['type', 'namespace', 'key', 'value', 'confidence', 'source'],
            },
          },
        },
        required: ['claims'],
        additionalProperties: false,
      },
      execute: async (args) => {
        const claims = objectOf(args)['claims'];
        if (!Array.isArray(claims) || claims.length === 0) {
          return {
            error: { code: 'invalid_request', description: 'claims must be a list of at least one claim' },
          };
        }
        return answer(await grant.propose(claims as ProposedClaim[]));
      },
    });
  }
  return tools;
}

/** Runs the tool the model named; an unknown name is answered as an error, never thrown. */
export async function runTool(tools: readonly AgentTool[], name: string, args: unknown): Promise<unknown> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) return { error: { code: 'unknown_tool', description: `there is no tool named ${name}` } };
  // Some formats hand the arguments over as JSON text (OpenAI's function calls).
  if (typeof args === 'string') {
    try {
      return await tool.execute(JSON.parse(args));
    } catch {
      return { error: { code: 'invalid_request', description: 'the arguments are not JSON' } };
    }
  }
  return tool.execute(args);
}

/** OpenAI's tools (Chat Completions and Responses): `{type: "function", function: {…}}`. */
export function toOpenAITools(tools: readonly AgentTool[]) {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** Anthropic's Messages API tools: `{name, description, input_schema}`. */
export function toAnthropicTools(tools: readonly AgentTool[]) {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/**
 * The Vercel AI SDK's tool set: `{name: {description, inputSchema, execute}}`. Pass the SDK's own
 * `jsonSchema` to wrap the schemas (`toAiSdkTools(tools, jsonSchema)`), so that this package
 * needs no dependency on it.
 */
export function toAiSdkTools(
  tools: readonly AgentTool[],
  wrap: (schema: JsonSchema) => unknown = (schema) => schema,
): Record<
  string,
  { description: string; inputSchema: unknown; execute: (args: unknown) => Promise<unknown> }
> {
  return Object.fromEntries(
    tools.map((t) => [
      t.name,
      { description: t.description, inputSchema: wrap(t.parameters), execute: t.execute },
    ]),
  );
}

function objectOf(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : {};
}

/** What the model reads: the value, or the refusal with its PPX code in words. */
function answer<T>(result: Result<T>): unknown {
  return result.ok
    ? result.value
    : { error: { code: result.error.code, description: result.error.description } };
}
