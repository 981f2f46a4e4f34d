import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { ConsentReceiptClaims, RECEIPT_TYP } from '../../../src/model/consent-receipt.ts';
import { toJsonSchema } from '../../../src/model/json-schema.ts';
import { canonicalJson, noticeHash, readClaims } from '../../../src/operations/consent/receipts.ts';
import { approve, ask, exchange, reject } from '../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// The receipt's published JSON Schema is generated from its one definition and validates every
// receipt the provider issues (approved, narrowed, rejected, revoked); the notice hash is over
// canonical JSON, so the same view always hashes the same.

const SCHEMA = new URL('../../../schemas/consent-receipt.schema.json', import.meta.url);

function validator() {
  const addFormats = addFormatsModule as unknown as (a: Ajv2020) => void;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(SCHEMA, 'utf8')));
}

describe('consent receipt format', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('publishes the schema generated from the model (run the generator in docs/receipts.md after a change)', () => {
    assert.deepEqual(JSON.parse(readFileSync(SCHEMA, 'utf8')), toJsonSchema(ConsentReceiptClaims));
  });

  it('issues receipts, signed with the published key, that the JSON Schema validates', async () => {
    const validate = validator();
    const a = await ask(p);
    await approve(p, a.id, { narrow: { allowed_namespaces: ['fragrance'] } });
    const t = await exchange(p, a);
    const b = await ask(p);
    await reject(p, b.id);
    await api(p.url, '/v1/consent/revoke', { token: p.subjectToken, body: { grant_id: t.json.grant_id } });
    const stored = await p.store.listConsentReceiptsBySubject(p.subjectId);
    assert.deepEqual(stored.map((r) => r.decision).sort(), ['narrowed', 'rejected', 'revoked']);
    for (const r of stored) {
      const header = decodeProtectedHeader(r.jws);
      assert.equal(header.typ, RECEIPT_TYP);
      assert.equal(header.kid, p.deps.tokens.documentSigner.kid);
      const { payload } = await compactVerify(r.jws, await importJWK(p.deps.tokens.publicJwk, 'EdDSA'));
      const claims = JSON.parse(new TextDecoder().decode(payload));
      assert.ok(validate(claims), JSON.stringify(validate.errors));
      assert.deepEqual(readClaims(r.jws), claims);
    }
  });

  it('refuses a payload missing a field or carrying one the format does not have', () => {
    const validate = validator();
    assert.equal(validate({ jti: 'x' }), false);
    assert.equal(ConsentReceiptClaims.safeParse({ jti: 'x' }).success, false);
  });

  it('hashes the shown request over canonical JSON: member order does not matter, content does', () => {
    assert.equal(canonicalJson({ b: [2, { d: 1, c: 'é' }], a: null }), '{"a":null,"b":[2,{"c":"é","d":1}]}');
    const asked = {
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['fragrance'],
      allowed_operations: ['read'],
      cross_domain_transfer: 'deny',
      writeback_policy: 'forbidden',
      expires_at: '2027-03-03T00:00:00.000Z',
      access_mode: 'continuous' as const,
    };
    const app = { client_id: 'c', name: 'Fragrance Finder' };
    const h = noticeHash({ app, asked });
    assert.match(h, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(noticeHash({ asked: { ...asked }, app: { name: app.name, client_id: 'c' } }), h);
    assert.notEqual(noticeHash({ app, asked: { ...asked, writeback_policy: 'allow' } }), h);
  });
});
