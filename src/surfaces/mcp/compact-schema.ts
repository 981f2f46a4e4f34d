// The schemas a tool publishes (issue 10 item 9): what an agent relies on, not the whole PPX
// object schema once per tool. An agent pays for every byte of tools/list in every session, and
// the SDK client compiles each output schema to validate results, so each stays a real JSON
// Schema 2020-12 that accepts every result the full one accepts; the full official schemas stay
// the tests' oracle, and each output names the one it follows (tools.ts).

type Json = Record<string, unknown>;

/** Any JSON value but null (a claim's value): a schema that says so, not an empty one. */
const ANY_VALUE: Json = { not: { type: 'null' } };

/**
 * An output, compacted to the members an agent relies on (`members`), with their types (and
 * values, for an enum); a member that is a list keeps what its items must hold (a claim's id,
 * namespace, key, value, confidence, source…) with their types; deeper than that, only types.
 * Patterns, formats, bounds and closed objects are dropped, so the compact schema never refuses
 * what the full one accepts: a member it does not declare is still allowed, and the official
 * schema the output follows says what it is.
 */
export function compactOutput(schema: Json, members: readonly string[]): Json {
  return compact(schema, 'document', members);
}

/**
 * An input, compacted: types, enums, required members and closed objects stay (they tell a model
 * what it may send); lengths, counts and patterns go, since the provider checks them anyway and
 * says which argument was wrong; so does `$schema` (MCP 2025-11-25: 2020-12 when absent).
 */
export function compactInput(schema: Json): Json {
  const out: Json = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (DROPPED.has(keyword)) continue;
    // `additionalProperties: {}` (a record of anything) is the default: an empty schema says nothing.
    if (keyword === 'additionalProperties' && isJson(value) && Object.keys(value).length === 0) continue;
    out[keyword] = compactInputValue(keyword, value);
  }
  return out;
}

const DROPPED = new Set([
  '$schema',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  'propertyNames',
]);

function compactInputValue(keyword: string, value: unknown): unknown {
  if (keyword === 'properties' && isJson(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isJson(v) ? compactInput(v) : v]));
  }
  if ((keyword === 'anyOf' || keyword === 'oneOf') && Array.isArray(value)) {
    return value.map((v) => (isJson(v) ? compactInput(v) : v));
  }
  if ((keyword === 'items' || keyword === 'additionalProperties') && isJson(value))
    return compactInput(value);
  return value;
}

/** Where a schema sits: the result, one of its members, an item of a member's list, deeper. */
type Level = 'document' | 'member' | 'item' | 'deep';

function compact(schema: Json, level: Level, members: readonly string[] = []): Json {
  if (typeof schema['$ref'] === 'string') return { $ref: schema['$ref'] };
  const union = (schema['anyOf'] ?? schema['oneOf']) as Json[] | undefined;
  if (union) return compactUnion(union, level);
  const type = schema['type'];
  if (type === undefined) return ANY_VALUE;
  if (Array.isArray(type))
    return compactUnion(
      type.map((t) => ({ ...schema, type: t })),
      level,
    );
  const out: Json = { type };
  if ((level === 'document' || level === 'member') && Array.isArray(schema['enum']))
    out['enum'] = schema['enum'];
  if (type === 'array' && isJson(schema['items'])) {
    out['items'] = compact(schema['items'], level === 'member' ? 'item' : 'deep');
  }
  if (type === 'object' && (level === 'document' || level === 'item')) {
    const properties = (schema['properties'] ?? {}) as Record<string, Json>;
    const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
    // The document: the members named for it; an item: what every item holds.
    const kept = level === 'document' ? members.filter((m) => m in properties) : required;
    const next: Level = level === 'document' ? 'member' : 'deep';
    if (kept.length > 0) {
      out['properties'] = Object.fromEntries(kept.map((name) => [name, compact(properties[name]!, next)]));
    }
    // An item declares only what every item holds: saying so again in `required` is the same list.
    const always = required.filter((m) => kept.includes(m));
    if (level === 'document' && always.length > 0) out['required'] = always;
  }
  return out;
}

/** A union of branches: each compacted; one that admits anything makes the union admit anything. */
function compactUnion(branches: readonly Json[], level: Level): Json {
  const compacted = branches.map((b) => compact(b, level));
  if (compacted.some((b) => b === ANY_VALUE)) return ANY_VALUE;
  const unique = [...new Map(compacted.map((b) => [JSON.stringify(b), b])).values()];
  return unique.length === 1 ? unique[0]! : { anyOf: unique };
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
