import { type Claim, namespaceOfKey, normalizeKey } from '../claim.ts';
import type { ExtensionDescriptor } from '../extension-descriptor.ts';
import { CORE_EXTENSION } from './core.ts';
import { FRAGRANCE_EXTENSION } from './fragrance.ts';
import { TRAVEL_EXTENSION } from './travel.ts';

/** The vocabularies this provider supports. `core` is always first. */
export const SUPPORTED_EXTENSIONS: readonly ExtensionDescriptor[] = [
  CORE_EXTENSION,
  FRAGRANCE_EXTENSION,
  TRAVEL_EXTENSION,
];

const byNamespace = new Map(SUPPORTED_EXTENSIONS.map((e) => [e.namespace, e]));

export function extensionFor(namespace: string): ExtensionDescriptor | undefined {
  return byNamespace.get(namespace);
}

export function isSupportedNamespace(namespace: string): boolean {
  return byNamespace.has(namespace);
}

/** A registered key of a supported namespace, or undefined. */
export type KeyDefinition = ExtensionDescriptor['keys'][number];

export function keyDefinition(namespace: string, key: string): KeyDefinition | undefined {
  return byNamespace.get(namespace)?.keys.find((k) => k.key === key);
}

/** The same, for a qualified key as grants name it (`x` or `core.x` for core, else `namespace.key`). */
export function keyDefinitionOf(qualified: string): KeyDefinition | undefined {
  const key = normalizeKey(qualified);
  const namespace = namespaceOfKey(key);
  return keyDefinition(namespace, namespace === 'core' ? key : key.slice(namespace.length + 1));
}

/** The qualified keys, as given, that no supported namespace registers (each once, in order). */
export function unregisteredKeys(qualified: readonly string[]): string[] {
  return [...new Set(qualified)].filter((k) => keyDefinitionOf(k) === undefined);
}

/** Says which keys no namespace registers, and where the registered ones are listed. */
export function unregisteredKeysProblem(keys: readonly string[]): string {
  return `no namespace registers the key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')} (GET /v1/extensions lists the keys)`;
}

export function supportedNamespaces(): string[] {
  return SUPPORTED_EXTENSIONS.map((e) => e.namespace);
}

/**
 * Checks a claim against its namespace's vocabulary: the namespace and key must be registered,
 * `value_type` (when given) must match the registered one, and the value must have that shape.
 * Returns the problems found, each a sentence naming the claim; empty means valid.
 */
export function vocabularyProblems(claim: Claim): string[] {
  const where = `claim ${claim.claim_id} (${claim.namespace}.${claim.key})`;
  const ext = byNamespace.get(claim.namespace);
  if (!ext) return [`${where}: namespace "${claim.namespace}" is not supported by this provider`];
  const def = keyDefinition(claim.namespace, claim.key);
  if (!def) return [`${where}: key "${claim.key}" is not defined in namespace "${claim.namespace}"`];
  const problems: string[] = [];
  if (claim.value_type && claim.value_type !== def.value_type) {
    problems.push(`${where}: value_type must be "${def.value_type}", not "${claim.value_type}"`);
  }
  const shape = valueShapeProblem(def.value_type, claim.value, def.allowed_values);
  if (shape) problems.push(`${where}: ${shape}`);
  if (def.units === 'normalized_0_1') {
    // Core keys (and every registered normalized key) take values in [0, 1] (SPEC §8.3).
    if (!shape && !isUnit(claim.value)) problems.push(`${where}: value must be between 0.0 and 1.0`);
    if (claim.units !== undefined && claim.units !== 'normalized_0_1') {
      problems.push(`${where}: units must be "normalized_0_1"`);
    }
  }
  return problems;
}

function isUnit(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1;
}

function valueShapeProblem(type: string, value: unknown, allowed?: string[]): string | undefined {
  switch (type) {
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'value must be a number';
    case 'int':
      return Number.isInteger(value) ? undefined : 'value must be an integer';
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'value must be true or false';
    case 'string':
      if (typeof value !== 'string') return 'value must be a string';
      return allowed && !allowed.includes(value) ? `value must be one of ${allowed.join(', ')}` : undefined;
    case 'string_list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? undefined
        : 'value must be a list of strings';
    case 'map':
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? undefined
        : 'value must be an object';
    case 'map<string,float>':
      return value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        Object.values(value).every((v) => typeof v === 'number' && Number.isFinite(v))
        ? undefined
        : 'value must be an object of numbers';
    default:
      return undefined;
  }
}
