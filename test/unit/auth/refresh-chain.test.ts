import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chainMacValid, chainToken, parseChainToken } from '../../../src/auth/refresh-chain.ts';
import { randomToken } from '../../../src/auth/secrets.ts';

// The form of a refresh token of a chain (auth/refresh-chain.ts): what parses, and what its mac
// proves.

describe('refresh chain tokens', () => {
  const seed = randomToken();
  const family = `fam_${randomToken(16)}`;

  it("names its family and generation, and its mac is the seed's for exactly those", () => {
    for (const generation of [0, 1, 41, 999_999_999_999_999]) {
      const token = chainToken(seed, family, generation);
      const named = parseChainToken(token);
      assert.deepEqual([named?.familyId, named?.generation], [family, generation]);
      assert.equal(chainMacValid(seed, named!), true);
      // Another seed, another generation, another family: the same mac proves none of them.
      assert.equal(chainMacValid(randomToken(), named!), false);
      assert.equal(chainMacValid(seed, { ...named!, generation: generation + 1 }), false);
      assert.equal(chainMacValid(seed, { ...named!, familyId: `fam_${randomToken(16)}` }), false);
    }
    assert.notEqual(chainToken(seed, family, 0), chainToken(randomToken(), family, 0));
  });

  it('parses nothing else: a bare capability (a token of a family made before chains), or any variant', () => {
    const mac = parseChainToken(chainToken(seed, family, 3))!.mac;
    for (const other of [
      randomToken(),
      '',
      `${family}~3`,
      `${family}~3~${mac}~`,
      `${family}~03~${mac}`,
      `${family}~-3~${mac}`,
      `${family}~3.0~${mac}`,
      `${family}~1e3~${mac}`,
      `${family}~${'9'.repeat(16)}~${mac}`,
      `${family}~3~${mac.slice(1)}`,
      `${family}~3~${mac}x`,
      `${family}~3~${mac.slice(1)}=`,
      `family~3~${mac}`,
      `fam_~3~${mac}`,
      `fam_${'a'.repeat(65)}~3~${mac}`,
      `${family}.3.${mac}`,
      ` ${family}~3~${mac}`,
      `${family}~3~${mac}\n`,
    ]) {
      assert.equal(parseChainToken(other), undefined, other);
    }
  });
});
