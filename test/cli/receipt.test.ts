import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { type CliSandbox, sandbox } from '../support/cli.ts';
import { granted } from '../support/consent-flow.ts';
import { startTestProvider, type TestProvider } from '../support/provider.ts';

// `ppx receipt verify FILE --jwks …` checks a receipt offline: 0 and the receipt in words when the
// signature holds under the keys; 1 and why not for a changed receipt, another provider's keys,
// or something that is not a receipt.

describe('ppx receipt verify', () => {
  let p: TestProvider;
  let box: CliSandbox;
  let receipt: string;
  let access: string;
  before(async () => {
    p = await startTestProvider();
    box = sandbox();
    const g = await granted(p);
    receipt = g.response.json.consent_receipt;
    access = g.access;
    writeFileSync(box.path('jwks.json'), await (await fetch(`${p.url}/.well-known/jwks.json`)).text());
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const jwk = {
      ...(await exportJWK(other.publicKey)),
      kid: p.deps.tokens.documentSigner.kid,
      alg: 'EdDSA',
    };
    writeFileSync(box.path('other.json'), JSON.stringify({ keys: [jwk] }));
  });
  after(async () => {
    box.cleanup();
    await p.close();
  });

  function file(name: string, text: string): string {
    writeFileSync(box.path(name), text);
    return box.path(name);
  }

  it('says a genuine receipt is genuine, and what it says, in words', async () => {
    const r = await box.run([
      'receipt',
      'verify',
      file('r.jwt', `${receipt}\n`),
      '--jwks',
      box.path('jwks.json'),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Genuine: signed by /);
    assert.match(
      r.stdout,
      /The person let .+ see their general traits and fragrance preferences until \d{1,2} \w+ \d{4}\./,
    );
    assert.match(r.stdout, /decision {5}approved/);
  });

  it('checks against the published JWKS by URL too', async () => {
    const r = await box.run([
      'receipt',
      'verify',
      file('u.jwt', receipt),
      '--jwks',
      `${p.url}/.well-known/jwks.json`,
    ]);
    assert.equal(r.code, 0, r.stderr);
  });

  it('refuses a receipt changed after it was signed', async () => {
    const [h, body, sig] = receipt.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
    claims.expires_at = '2099-01-01T00:00:00.000Z';
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    const r = await box.run(['receipt', 'verify', file('t.jwt', forged), '--jwks', box.path('jwks.json')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the signature does not match/);
    assert.equal(r.stdout, '');
  });

  it("refuses a receipt under another provider's keys", async () => {
    const r = await box.run(['receipt', 'verify', file('w.jwt', receipt), '--jwks', box.path('other.json')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the signature does not match/);
  });

  it('refuses what is not a receipt: an access token, or not a JWS at all', async () => {
    const token = await box.run([
      'receipt',
      'verify',
      file('a.jwt', access),
      '--jwks',
      box.path('jwks.json'),
    ]);
    assert.equal(token.code, 1);
    assert.match(token.stderr, /not a consent receipt: its type is at\+jwt/);
    const junk = await box.run([
      'receipt',
      'verify',
      file('j.jwt', 'hello'),
      '--jwks',
      box.path('jwks.json'),
    ]);
    assert.equal(junk.code, 1);
    assert.match(junk.stderr, /not a consent receipt/);
  });

  it('says how to use it when the file is missing', async () => {
    const r = await box.run(['receipt', 'verify']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /name one receipt file/);
  });
});
