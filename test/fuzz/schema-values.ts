import type { Rand } from './rand.ts';
import { type Json, randomJson, randomKey, randomNumber, randomString } from './values.ts';

// Values shaped by a JSON Schema (the operations' own input schemas, z.toJSONSchema of them; the
// MCP tools' inputSchema as tools/list publishes it): mostly valid, so that a request gets past
// the first check and the deeper ones see the fuzz, and filled with the provider's own words
// (real grant ids, namespaces, claim keys) where a property's name says what it holds.

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly items?: JsonSchema;
  readonly prefixItems?: readonly JsonSchema[];
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly enum?: readonly Json[];
  readonly const?: Json;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly format?: string;
  readonly pattern?: string;
  readonly $ref?: string;
  readonly $defs?: Readonly<Record<string, JsonSchema>>;
  readonly default?: Json;
}

/** The provider's words for a property, by its name (a grant id for `grant_id`), or undefined. */
export type Words = (key: string) => readonly string[] | undefined;

/** Whole example values for a property the schema leaves open (a proposed claim), by its name. */
export type Examples = (key: string) => readonly Json[] | undefined;

export interface SchemaContext {
  readonly rand: Rand;
  readonly words: Words;
  readonly examples?: Examples;
  /** The root schema, for `$ref`s into its `$defs`. */
  readonly root: JsonSchema;
}

export function shaped(schema: JsonSchema, ctx: SchemaContext, key = '', depth = 0): Json {
  const { rand } = ctx;
  if (depth > 8) return null;
  if (schema.$ref !== undefined) {
    const name = schema.$ref.replace(/^#\/\$defs\//, '');
    const target = ctx.root.$defs?.[name];
    return target ? shaped(target, ctx, key, depth + 1) : randomJson(rand, 2);
  }
  // A list takes its examples item by item (its items share its name).
  const examples = schema.type === 'array' ? undefined : ctx.examples?.(key);
  if (examples && examples.length > 0 && rand.chance(0.8)) return structuredClone(rand.pick(examples));
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined && schema.enum.length > 0) return rand.pick(schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (options && options.length > 0) return shaped(rand.pick(options), ctx, key, depth + 1);
  if (schema.allOf && schema.allOf.length > 0) return shaped(schema.allOf[0]!, ctx, key, depth + 1);

  const type = Array.isArray(schema.type) ? rand.pick(schema.type as string[]) : schema.type;
  switch (type) {
    case 'object':
      return objectOf(schema, ctx, key, depth);
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 6, min + 6);
      const n = rand.int(min, Math.max(min, max));
      if (schema.prefixItems) return schema.prefixItems.map((s) => shaped(s, ctx, key, depth + 1));
      const items = schema.items ?? {};
      return Array.from({ length: n }, () => shaped(items, ctx, key, depth + 1));
    }
    case 'string':
      return stringOf(schema, ctx, key);
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? schema.exclusiveMinimum ?? (type === 'integer' ? -5 : 0);
      const hi = schema.maximum ?? schema.exclusiveMaximum ?? (type === 'integer' ? 100 : 1);
      if (rand.chance(0.1)) return randomNumber(rand);
      const v = lo + rand.float() * (hi - lo);
      return type === 'integer' ? Math.round(v) : v;
    }
    case 'boolean':
      return rand.chance(0.5);
    case 'null':
      return null;
    default: {
      const words = ctx.words(key);
      if (words && rand.chance(0.5)) return rand.pick(words);
      return randomJson(rand, 2);
    }
  }
}

function objectOf(schema: JsonSchema, ctx: SchemaContext, key: string, depth: number): Json {
  const { rand } = ctx;
  const out: Record<string, Json> = {};
  const required = new Set(schema.required ?? []);
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    if (required.has(k) ? rand.chance(0.97) : rand.chance(0.6)) out[k] = shaped(s, ctx, k, depth + 1);
  }
  const extra = schema.additionalProperties;
  if (typeof extra === 'object' && rand.chance(0.75)) {
    const n = rand.int(1, 3);
    for (let i = 0; i < n; i++) {
      const k = propertyName(schema.propertyNames, ctx, key);
      out[k] = shaped(extra, ctx, k, depth + 1);
    }
  } else if (extra !== false && schema.properties === undefined && rand.chance(0.3)) {
    out[randomKey(rand)] = randomJson(rand, 2);
  }
  return out;
}

/**
 * A name for an additional property: a claim key where the names are claim keys (`namespace.key`
 * patterns), else one of the provider's context dimensions, or a plain name.
 */
function propertyName(schema: JsonSchema | undefined, ctx: SchemaContext, parent: string): string {
  const claimKeys = parent !== 'context' && schema?.pattern?.includes('\\.');
  const words = ctx.words(claimKeys ? 'key' : 'context_key');
  if (words && ctx.rand.chance(0.7)) return ctx.rand.pick(words);
  if (schema?.pattern === '^[a-z][a-z0-9_]*$') return `k${ctx.rand.int(0, 99)}`;
  return randomKey(ctx.rand);
}

function stringOf(schema: JsonSchema, ctx: SchemaContext, key: string): string {
  const { rand } = ctx;
  const words = ctx.words(key);
  if (words && words.length > 0 && rand.chance(0.75)) return rand.pick(words);
  if (schema.format === 'date-time' || /_at$|^since$|^until$|^from$|^to$/.test(key)) {
    const offset = (rand.float() - 0.3) * 400 * 86_400_000;
    return new Date(Date.now() + offset).toISOString();
  }
  if (schema.format === 'uri' || /uri$|url$/.test(key)) {
    return rand.pick(['https://example.com/callback', 'http://127.0.0.1/cb', randomString(rand, 30)]);
  }
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 40;
  let s = randomString(rand, Math.min(max, 60));
  if (s.length < min) s = s.padEnd(min, 'x');
  return s.slice(0, max);
}
