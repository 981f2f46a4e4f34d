import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, verifyPassword } from '../../../src/auth/passwords.ts';
import { s256, verifyS256 } from '../../../src/auth/pkce.ts';
import { randomToken, safeEqual, sha256 } from '../../../src/auth/secrets.ts';

describe('PKCE S256 (RFC 7636)', () => {
  it('matches the RFC 7636 appendix B example', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    assert.equal(s256(verifier), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    assert.equal(verifyS256(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true);
  });

  it('refuses a wrong verifier, a short one, and one with forbidden characters', () => {
    const verifier = randomToken(32);
    const challenge = s256(verifier);
    assert.equal(verifyS256(`${verifier}x`, challenge), false);
    assert.equal(verifyS256('short', s256('short')), false);
    const spaced = `${'a'.repeat(42)} `;
    assert.equal(verifyS256(spaced, s256(spaced)), false);
  });
});

describe('secrets', () => {
  it('random tokens are 256-bit base64url and distinct', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()));
    assert.equal(tokens.size, 1000);
    for (const t of tokens) assert.match(t, /^[A-Za-z0-9_-]{43}$/);
  });

  it('sha256 is stable and safeEqual compares exactly', () => {
    assert.equal(sha256('abc'), 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
  });
});

describe('passwords (scrypt)', () => {
  it('verifies the right password only, and never stores it', async () => {
    const hash = await hashPassword('correct horse battery');
    assert.match(hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    assert.equal(hash.includes('correct'), false);
    assert.equal(await verifyPassword('correct horse battery', hash), true);
    assert.equal(await verifyPassword('correct horse batterY', hash), false);
  });

  it('salts: the same password hashes differently', async () => {
    assert.notEqual(await hashPassword('same password'), await hashPassword('same password'));
  });

  it('a malformed stored hash never verifies and never throws', async () => {
    for (const bad of ['', 'plain', 'scrypt$1$2', 'scrypt$x$y$z$salt$key', 'bcrypt$1$2$3$a$b']) {
      assert.equal(await verifyPassword('anything', bad), false);
    }
  });
});
