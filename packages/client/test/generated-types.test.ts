import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { GENERATED_FILE, generateTypes } from '../scripts/generate-types.ts';

// The committed types are the provider's OpenAPI document as it is now: when the document changes,
// `node packages/client/scripts/generate-types.ts` writes the file again, and this test says so.

it('src/generated/openapi.ts equals a fresh generation from /openapi.json', async () => {
  assert.equal(
    readFileSync(GENERATED_FILE, 'utf8'),
    await generateTypes(),
    'run `node packages/client/scripts/generate-types.ts` and commit the result',
  );
});
