import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// The official PPX JSON Schemas (../shared/spec/ppx/schemas) are the oracle for every PPX object
// the product emits (WIRE-NOTES §1). They live outside the repository: tests that need them skip
// with a message where ../shared is absent, so a clone elsewhere still passes. CI always has it.

export const SHARED_SPEC = new URL('../../../shared/spec/ppx/', import.meta.url);
export const HAVE_SHARED = existsSync(new URL('schemas/core/claim.schema.json', SHARED_SPEC));
export const SKIP_NO_SHARED = HAVE_SHARED ? false : 'needs ../shared/spec (the official PPX schemas)';

export type OfficialSchemaName =
  | 'claim'
  | 'consent-grant'
  | 'context-modifier'
  | 'derived-view'
  | 'discovery-card'
  | 'effective-profile'
  | 'evidence-ref'
  | 'extension-descriptor'
  | 'profile';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
let ajv: Ajv2020 | undefined;

function load(): Ajv2020 {
  if (ajv) return ajv;
  const addFormats = addFormatsModule as unknown as (a: Ajv2020) => void;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const dir = new URL('schemas/core/', SHARED_SPEC);
  for (const file of readdirSync(dir)) {
    ajv.addSchema(JSON.parse(readFileSync(new URL(file, dir), 'utf8')));
  }
  return ajv;
}

/** Returns the list of schema errors of `data` against the official schema (empty = valid). */
export function officialErrors(name: OfficialSchemaName, data: unknown): unknown[] {
  const validate = load().getSchema(`https://ppx.dev/schemas/core/${name}.schema.json`) as
    | Validate
    | undefined;
  if (!validate) throw new Error(`official schema ${name} not found`);
  return validate(data) ? [] : ((validate.errors as unknown[]) ?? []);
}

export function readOfficialExample(file: string): unknown {
  return JSON.parse(readFileSync(new URL(`examples/${file}`, SHARED_SPEC), 'utf8'));
}
