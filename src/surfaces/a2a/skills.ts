import type { AgentSkill } from '@a2a-js/sdk';
import { fail, ok, type Result } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import type { CatalogOperation } from '../../operations/catalog/contract.ts';
import { CATALOG } from '../../operations/catalog/index.ts';

// The preference agent's skills (WIRE-NOTES §6, bindings/a2a.md): the catalog's operations with
// an `a2a` binding, each run through its own handler as every other surface runs it. How a
// message names its skill: a data part `{method, params}`, or `metadata.skillId` and a data part
// holding the params. Messages arrive in three spellings (A2A 1.0 JSON, 0.3 JSON, and the SDK's
// own objects), so parts are read through `partOf`.

export interface Skill {
  readonly id: string;
  readonly operation: CatalogOperation;
}

export const SKILLS: ReadonlyMap<string, Skill> = new Map(
  CATALOG.flatMap((operation) =>
    operation.a2a ? [[operation.a2a.skill, { id: operation.a2a.skill, operation }] as const] : [],
  ),
);

const JSON_MODE = 'application/json';

/** The skills as the agent card lists them. */
export function cardSkills(): AgentSkill[] {
  return [...SKILLS.values()].map(({ id, operation }) => ({
    id,
    name: operation.title,
    description: operation.description ?? operation.summary,
    tags: [...(operation.a2a?.tags ?? [])],
    examples: [...(operation.a2a?.examples ?? [])],
    inputModes: [JSON_MODE],
    outputModes: [JSON_MODE],
    securityRequirements: [],
  }));
}

/** One part of a message, whatever its spelling. */
type PartOf =
  | { readonly kind: 'data'; readonly data: unknown }
  | { readonly kind: 'text' | 'file' }
  | { readonly kind: 'unknown' };

function partOf(part: unknown): PartOf {
  if (typeof part !== 'object' || part === null) return { kind: 'unknown' };
  const p = part as Record<string, unknown>;
  // The SDK's objects: {content: {$case, value}}.
  const content = p.content as { $case?: unknown; value?: unknown } | undefined;
  if (content && typeof content === 'object') {
    if (content.$case === 'data') return { kind: 'data', data: content.value };
    if (content.$case === 'text') return { kind: 'text' };
    if (content.$case === 'url' || content.$case === 'raw') return { kind: 'file' };
    return { kind: 'unknown' };
  }
  // 0.3: {kind: "data", data} / {kind: "text", text} / {kind: "file", file}.
  if (p.kind === 'data' && 'data' in p) return { kind: 'data', data: p.data };
  if (p.kind === 'text' && typeof p.text === 'string') return { kind: 'text' };
  if (p.kind === 'file') return { kind: 'file' };
  if (p.kind !== undefined) return { kind: 'unknown' };
  // 1.0 JSON: exactly one of data, text, url, raw.
  if ('data' in p) return { kind: 'data', data: p.data };
  if (typeof p.text === 'string') return { kind: 'text' };
  if (typeof p.url === 'string' || typeof p.raw === 'string') return { kind: 'file' };
  return { kind: 'unknown' };
}

/** What a message asks for: the skill, and its params as sent. */
export interface Named {
  readonly skill: Skill;
  readonly params: unknown;
}

/** The skill and its input, parsed with the operation's own schema. */
export interface Asked {
  readonly skill: Skill;
  readonly input: unknown;
}

/** The params checked by the skill's operation's own schema (after what the grant refuses: §2.7). */
export function askedOf(named: Named): Result<Asked> {
  const input = parseInput(named.skill.operation.input, named.params, `the params of ${named.skill.id}`);
  return input.ok ? ok({ skill: named.skill, input: input.value }) : input;
}

/** Which skill a message names, and its params. Every failure is an invalid_request (-32602). */
export function namedSkill(message: unknown): Result<Named> {
  if (typeof message !== 'object' || message === null)
    return fail('invalid_request', 'params.message is required');
  const m = message as { parts?: unknown; metadata?: unknown };
  if (!Array.isArray(m.parts) || m.parts.length === 0) {
    return fail('invalid_request', 'the message has no parts: send a data part {method, params}');
  }
  const parts = m.parts.map(partOf);
  const unknown = parts.findIndex((p) => p.kind === 'unknown');
  if (unknown !== -1) {
    return fail(
      'invalid_request',
      `part ${unknown + 1} of the message is of no kind A2A knows (text, data, file)`,
    );
  }
  const data = parts.filter((p): p is Extract<PartOf, { kind: 'data' }> => p.kind === 'data');
  if (parts.some((p) => p.kind === 'file')) {
    return fail('invalid_request', 'the preference agent takes no files: send a data part {method, params}');
  }
  const metadata = (typeof m.metadata === 'object' && m.metadata !== null ? m.metadata : {}) as Record<
    string,
    unknown
  >;
  let skillId: unknown = metadata.skillId;
  let params: unknown;
  if (skillId !== undefined) {
    if (data.length > 1)
      return fail('invalid_request', 'with metadata.skillId, send one data part: the params');
    params = data[0]?.data ?? {};
  } else {
    if (data.length !== 1) {
      return fail(
        'invalid_request',
        `say which skill to run: one data part {method, params}, or metadata.skillId and a data part of params (the skills: ${[...SKILLS.keys()].join(', ')})`,
      );
    }
    const body = data[0]!.data as { method?: unknown; params?: unknown } | null;
    if (typeof body !== 'object' || body === null || typeof body.method !== 'string') {
      return fail('invalid_request', 'the data part names its skill in "method" (and its input in "params")');
    }
    skillId = body.method;
    params = body.params ?? {};
  }
  if (typeof skillId !== 'string') return fail('invalid_request', 'metadata.skillId is a skill id');
  const skill = SKILLS.get(skillId);
  if (skill === undefined) {
    return fail(
      'invalid_request',
      `there is no skill "${skillId}"; the skills are ${[...SKILLS.keys()].join(', ')}`,
    );
  }
  return ok({ skill, params });
}
