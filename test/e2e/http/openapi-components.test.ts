import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// The OpenAPI document names its schemas (issue 28 item 1): every PPX object and shared answer is
// a component the operations point at, so a standard generator (openapi-typescript) gives a
// client `Claim`, `EffectiveProfile`, `ConsentGrant`, … instead of anonymous shapes.

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
};

describe('named OpenAPI components', () => {
  let p: TestProvider;
  let doc: Doc;
  before(async () => {
    p = await startTestProvider();
    const r = await api(p.url, '/openapi.json');
    assert.equal(r.status, 200);
    doc = r.json as Doc;
  });
  after(() => p.close());

  it('names the PPX objects, and stays a valid OpenAPI 3.1 document', async () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'Claim',
      'Profile',
      'ProfileSummary',
      'EffectiveProfile',
      'ConsentGrant',
      'ContextModifier',
      'DerivedView',
      'DiscoveryCard',
      'AuditEvent',
      'ProposalOutcome',
      'WritebackResponse',
      'Tokens',
      'Error',
    ]) {
      assert.ok(names.includes(name), `${name} is a component`);
    }
    const v = new Validator();
    const res = await v.validate(doc as never);
    assert.equal(res.valid, true, JSON.stringify(res.errors));
  });

  it('every answer and body is a reference to a component, and every reference resolves', () => {
    const text = JSON.stringify(doc);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const schema = response.content?.['application/json']?.schema as { $ref?: string } | undefined;
          assert.match(
            schema?.$ref ?? '',
            /^#\/components\/schemas\/[A-Za-z]+$/,
            `${method} ${path} ${status}`,
          );
        }
      }
    }
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([A-Za-z0-9_]+)"/g)) {
      assert.ok(name !== undefined && name in doc.components.schemas, `${name} is defined`);
    }
    assert.ok(!text.includes('#/$defs/'), 'no reference is left to a local $defs');
    const effective = doc.paths['/v1/profile/effective']?.['post']?.responses['200'];
    assert.deepEqual(effective?.content?.['application/json']?.schema, {
      $ref: '#/components/schemas/EffectiveProfile',
    });
  });

  it('openapi-typescript generates a type named Claim, and the operations use the named types', async () => {
    const ts = astToString(await openapiTS(doc as never));
    assert.match(ts, /\n {8}Claim: \{/, 'components["schemas"]["Claim"]');
    assert.match(ts, /components\["schemas"\]\["EffectiveProfile"\]/);
    assert.match(ts, /components\["schemas"\]\["ConsentGrant"\]/);
  });
});
