import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { exportJWK } from 'jose';
import { DPOP_ALGS, verifyProof } from '../../../src/auth/dpop.ts';
import { dpopKey, proof } from '../../support/dpop.ts';

// The proof's signature is checked by node:crypto (src/auth/proof-signature.ts), not by jose's
// WebCrypto verify: every algorithm the metadata offers must still verify a good proof and refuse
// a tampered one, and keys that jose would refuse (wrong curve, short RSA) stay refused.

const HTU = 'https://ppx.example/v1/profile/effective';
const expect = () => ({ htm: 'POST', htu: HTU, now: new Date() });

function tamper(jws: string): string {
  const [h, p, s] = jws.split('.') as [string, string, string];
  const sig = Buffer.from(s, 'base64url');
  sig[sig.length - 1]! ^= 1;
  return `${h}.${p}.${sig.toString('base64url')}`;
}

describe('DPoP proof signatures for every offered algorithm', () => {
  // Every algorithm the metadata offers (dpop_signing_alg_values_supported).
  for (const alg of DPOP_ALGS) {
    it(`${alg}: a good proof verifies, a tampered one does not`, async () => {
      const key = await dpopKey(alg);
      const good = await proof(key, { htm: 'POST', htu: HTU, alg });
      const passed = await verifyProof(good, expect());
      assert.equal(passed.ok, true, JSON.stringify(passed));
      assert.equal(passed.ok && passed.value.jkt, key.jkt);
      const bad = await verifyProof(tamper(good), expect());
      assert.equal(bad.ok, false);
      assert.match(!bad.ok ? bad.error.description : '', /signature does not verify/);
    });
  }

  it('ECDSA signatures of every shape verify (r or s with a high bit, with leading zero bytes)', async () => {
    // 600 signatures: about half have a high first bit and a few a leading zero byte, the cases
    // the r‖s to DER conversion must get right.
    for (const alg of ['ES256', 'ES512']) {
      const key = await dpopKey(alg);
      for (let i = 0; i < 300; i++) {
        const result = await verifyProof(await proof(key, { htm: 'POST', htu: HTU, alg }), expect());
        assert.equal(result.ok, true, `${alg} proof ${i}: ${JSON.stringify(result)}`);
      }
    }
    const [h, p, s] = (await proof(await dpopKey(), { htm: 'POST', htu: HTU })).split('.') as [
      string,
      string,
      string,
    ];
    const short = Buffer.from(s, 'base64url').subarray(1).toString('base64url');
    assert.equal((await verifyProof(`${h}.${p}.${short}`, expect())).ok, false, 'a signature one byte short');
  });

  it('a payload changed after signing does not verify', async () => {
    const key = await dpopKey();
    const [h, , s] = (await proof(key, { htm: 'POST', htu: HTU })).split('.');
    const payload = Buffer.from(
      JSON.stringify({ jti: 'x', htm: 'POST', htu: HTU, iat: Date.now() / 1000 }),
    ).toString('base64url');
    const result = await verifyProof(`${h}.${payload}.${s}`, expect());
    assert.equal(result.ok, false);
  });

  it('a P-384 key under ES256, and an RSA key of 1024 bits, are not keys for the proof', async () => {
    const p384 = await dpopKey('ES384');
    const mismatched = await proof(p384, { htm: 'POST', htu: HTU, alg: 'ES384' });
    const [, p, s] = mismatched.split('.');
    const header = Buffer.from(
      JSON.stringify({ alg: 'ES256', typ: 'dpop+jwt', jwk: p384.publicJwk }),
    ).toString('base64url');
    const wrongCurve = await verifyProof(`${header}.${p}.${s}`, expect());
    assert.match(!wrongCurve.ok ? wrongCurve.error.description : '', /not a public key for ES256/);

    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const short = Buffer.from(
      JSON.stringify({ alg: 'RS256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) }),
    ).toString('base64url');
    const shortKey = await verifyProof(`${short}.${p}.${s}`, expect());
    assert.match(!shortKey.ok ? shortKey.error.description : '', /not a public key for RS256/);
  });

  it('a proof naming a JWS extension (crit, b64) is refused', async () => {
    const key = await dpopKey();
    const [, p, s] = (await proof(key, { htm: 'POST', htu: HTU })).split('.');
    for (const extra of [{ crit: ['exp'] }, { b64: false, crit: ['b64'] }]) {
      const header = Buffer.from(
        JSON.stringify({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk, ...extra }),
      ).toString('base64url');
      const result = await verifyProof(`${header}.${p}.${s}`, expect());
      assert.match(!result.ok ? result.error.description : '', /JWS extension/);
    }
  });
});
