import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { signingKeyOf } from '../../../../src/auth/signing-keys.ts';
import { TokenService } from '../../../../src/auth/tokens.ts';
import { ok } from '../../../../src/model/errors.ts';
import { limiterKey, readBearer } from '../../../../src/surfaces/shared/bearer.ts';
import { signatureSpellings } from '../../../support/spellings.ts';

// The rate-limit key (issue 10 item 6): what a token is, not how it is spelled.

async function twoTokens(): Promise<[string, string]> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const signingKey = signingKeyOf(await exportJWK(privateKey));
  const key = { kid: await calculateJwkThumbprint(publicJwk), privateKey, signingKey, publicKey, publicJwk };
  const s = new TokenService(key, { issuer: 'https://ppx.example' });
  const now = new Date();
  const mint = () => s.mint({ kind: 'subject', subjectId: 's' }, 60, now, 'https://ppx.example');
  return [await mint(), await mint()];
}

describe('limiterKey', () => {
  it('every spelling of one token has one key; another token has another', async () => {
    const [a, b] = await twoTokens();
    const keys = new Set(signatureSpellings(a).map((t) => limiterKey(ok(t), '10.0.0.1')));
    assert.equal(keys.size, 1);
    assert.notEqual(limiterKey(ok(b), '10.0.0.1'), [...keys][0]);
    assert.notEqual([...keys][0], '10.0.0.1');
  });

  it('no token, a malformed header, or a string that cannot be a token: the address', () => {
    assert.equal(limiterKey(undefined, '10.0.0.1'), '10.0.0.1');
    assert.equal(limiterKey(readBearer('Basic abc'), '10.0.0.1'), '10.0.0.1');
    for (const garbage of ['abc', 'a.b', 'a.b.c.d', 'é.é.é', `${'a'.repeat(5000)}.b.c`]) {
      assert.equal(limiterKey(ok(garbage), '10.0.0.1'), '10.0.0.1', garbage.slice(0, 20));
    }
    assert.equal(limiterKey(undefined, undefined), 'unknown');
  });
});
