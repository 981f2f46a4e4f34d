import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { A2uiMessageSchema } from '@a2ui/web_core';
import { Ajv } from 'ajv';
import type { Component, SurfaceParts } from '../../src/surfaces/shared/a2ui/messages.ts';

// The two oracles for a v0.8 message (PITFALLS): the JSON schema with the standard catalog shipped
// in @a2ui/web_core (read by path: the package does not export it; ajv strict off, as it uses
// keywords ajv does not know), which alone accepts too much, and the zod schema the renderer
// itself parses every message with.

const require = createRequire(import.meta.url);
const schemaPath = require
  .resolve('@a2ui/web_core')
  .replace(/index\.js$/, 'schemas/server_to_client_with_standard_catalog.json');
const validate = new Ajv({ strict: false, allErrors: true }).compile(
  JSON.parse(readFileSync(schemaPath, 'utf8')),
);

/** Problems of one message under both oracles; empty when it is valid. */
export function messageProblems(message: unknown): string[] {
  const out: string[] = [];
  if (!validate(message)) out.push(`JSON schema: ${JSON.stringify(validate.errors)}`);
  const parsed = A2uiMessageSchema.safeParse(message);
  if (!parsed.success) out.push(`zod: ${parsed.error.message}`);
  return out;
}

/** The component's type and properties. */
export function typeOf(c: Component): [string, Record<string, unknown>] {
  const [entry] = Object.entries(c.component);
  if (entry === undefined) throw new Error(`component ${c.id} has no type`);
  return entry as [string, Record<string, unknown>];
}

export function ofType(parts: SurfaceParts, type: string): Component[] {
  return parts.components.filter((c) => typeOf(c)[0] === type);
}

/** Every component id a component refers to (Card and Button child, children lists). */
export function referencedIds(c: Component): string[] {
  const [, props] = typeOf(c);
  const out: string[] = [];
  if (typeof props.child === 'string') out.push(props.child);
  const children = props.children as
    | { explicitList?: string[]; template?: { componentId: string } }
    | undefined;
  out.push(...(children?.explicitList ?? []));
  if (children?.template) out.push(children.template.componentId);
  return out;
}

/** Every string a person reads: texts, labels, the options of a choice. */
export function personStrings(parts: SurfaceParts): string[] {
  const out: string[] = [];
  const lit = (v: unknown) => {
    const s = (v as { literalString?: unknown } | undefined)?.literalString;
    if (typeof s === 'string') out.push(s);
  };
  for (const c of parts.components) {
    const [type, props] = typeOf(c);
    if (type === 'Text') lit(props.text);
    if (type === 'Icon') continue; // an icon's name is not read as words
    lit(props.label);
    for (const o of (props.options as Array<{ label: unknown }> | undefined) ?? []) lit(o.label);
  }
  return out;
}

/** The words of the Text components, joined, for asserting what a person reads. */
export function allWords(parts: SurfaceParts): string {
  return personStrings(parts).join('\n');
}

/** A renderer's data model (Maps, signal maps) as plain JSON, to compare with the PPX object. */
export function toPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [k, toPlain(v)]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  }
  return value;
}

/** The action of a Button. */
export function actionOf(c: Component): {
  name: string;
  context: Array<{ key: string; value: Record<string, unknown> }>;
} {
  return typeOf(c)[1].action as never;
}
