import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  BASIC_COMPONENTS,
  BASIC_FUNCTIONS,
  Catalog,
  type ComponentApi,
  MessageProcessor,
} from '@a2ui/web_core/v0_9';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { BASIC_CATALOG_V09 } from '../../src/surfaces/shared/a2ui/index.ts';

// The two oracles for an A2UI v0.9 message, as for v0.8 (test/unit/a2ui/support.ts): the JSON
// Schemas shipped in @a2ui/web_core (src/v0_9/schemas, read by path: the package does not export
// them), validated as JSON Schema 2020-12 with the basic catalog the surfaces name; and the v0.9
// MessageProcessor of @a2ui/web_core, which checks each component against the catalog's zod
// schemas and keeps the surface's data model. Not a *.test.ts file.

const require = createRequire(import.meta.url);
const V09 = require.resolve('@a2ui/web_core/v0_9').replace(/index\.js$/, 'schemas/');
const read = (file: string) => JSON.parse(readFileSync(`${V09}${file}`, 'utf8')) as Record<string, unknown>;

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
let validators: { message: Validate; list: Validate } | undefined;

function load(): { message: Validate; list: Validate } {
  if (validators) return validators;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(read('common_types.json'));
  // server_to_client.json names its catalog `catalog.json`, relative to its own $id: the
  // catalog a surface is created with. Every surface here names the basic catalog.
  const basic = read('catalogs/basic/catalog.json');
  if (basic['catalogId'] !== BASIC_CATALOG_V09)
    throw new Error(`the basic catalog is ${String(basic['catalogId'])}`);
  ajv.addSchema({ ...basic, $id: 'https://a2ui.org/specification/v0_9/catalog.json' });
  ajv.addSchema(read('server_to_client.json'));
  ajv.addSchema(read('server_to_client_list.json'));
  validators = {
    message: ajv.getSchema('https://a2ui.org/specification/v0_9/server_to_client.json') as Validate,
    list: ajv.getSchema('https://a2ui.org/specification/v0_9/server_to_client_list.json') as Validate,
  };
  return validators;
}

/** Problems of one v0.9 server-to-client message under the JSON Schema; empty when valid. */
export function messageProblemsV09(message: unknown): string[] {
  const { message: validate } = load();
  return validate(message) ? [] : [`JSON schema: ${JSON.stringify(validate.errors).slice(0, 2000)}`];
}

/** Problems of a list of messages (an A2A data part's `data`, A2UI v0.9 extension); empty when valid. */
export function listProblemsV09(list: unknown): string[] {
  const { list: validate } = load();
  return validate(list) ? [] : [`JSON schema: ${JSON.stringify(validate.errors).slice(0, 2000)}`];
}

/** The v0.9 processor of @a2ui/web_core with the basic catalog (no DOM needed). */
export function processorV09(): MessageProcessor<ComponentApi> {
  return new MessageProcessor([new Catalog(BASIC_CATALOG_V09, BASIC_COMPONENTS, BASIC_FUNCTIONS)]);
}
