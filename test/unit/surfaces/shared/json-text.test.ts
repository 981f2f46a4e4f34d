import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { share } from '../../../../src/cache/identity-memo.ts';
import { jsonBytes, jsonChunks, jsonText } from '../../../../src/surfaces/shared/json-text.ts';
import { prng } from '../../../support/random.ts';

// jsonText must be JSON.stringify, only cheaper for shared values: compared on random data with
// shared values at every depth, undefined members and elements, and values with toJSON.

function randomValue(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth <= 0 || r < 0.35) {
    const leaves = [null, true, false, 0, -1.5, 1e21, 'text', 'quote " and \\ and \n', 'é ✓ 😀', undefined];
    return leaves[Math.floor(rand() * leaves.length)];
  }
  const made =
    r < 0.65
      ? Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth - 1))
      : rand() < 0.1
        ? { toJSON: () => ({ replaced: true }) }
        : Object.fromEntries(
            Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [`k${i}`, randomValue(rand, depth - 1)]),
          );
  return rand() < 0.3 ? share(made as object) : made;
}

/** `count` random cases from `seed`: a value with shared values at every depth, and a depth to descend. */
function* randomCases(seed: number, count: number): Generator<{ i: number; value: unknown; depth: number }> {
  const rand = prng(seed);
  for (let i = 0; i < count; i++) {
    const value = { top: randomValue(rand, 5), other: randomValue(rand, 3) };
    yield { i, value, depth: Math.floor(rand() * 6) };
  }
}

describe('jsonText', () => {
  it('is JSON.stringify for random data, at every depth', () => {
    for (const { i, value, depth } of randomCases(42, 3000)) {
      assert.equal(jsonText(value, depth), JSON.stringify(value), `case ${i}, depth ${depth}`);
      // Twice: the second answer comes from the cache of shared values.
      assert.equal(jsonText(value, depth), JSON.stringify(value), `case ${i} again`);
    }
  });

  it('is JSON.stringify for a shared top-level value and for scalars', () => {
    const shared = share({ a: [1, 2, { b: 'c' }], d: undefined });
    assert.equal(jsonText(shared), JSON.stringify(shared));
    assert.equal(jsonText('x'), '"x"');
    assert.equal(jsonText(null), 'null');
  });
});

describe('jsonBytes', () => {
  it('is the UTF-8 of JSON.stringify for random data, at every depth, three times over', () => {
    for (const { i, value, depth } of randomCases(7, 3000)) {
      const expected = Buffer.from(JSON.stringify(value), 'utf8');
      // The third answer copies the bytes kept for shared values.
      for (let n = 0; n < 3; n++)
        assert.ok(jsonBytes(value, depth).equals(expected), `case ${i}, depth ${depth}`);
    }
  });

  it('writes null for an undefined top level and for undefined or function elements', () => {
    assert.equal(jsonBytes(undefined, 2).toString(), 'null');
    assert.equal(jsonBytes([undefined, () => 1], 2).toString(), '[null,null]');
  });

  it('writes null for a hole in an array, as JSON.stringify does', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case
    const sparse = [, 1, { a: [, 'b'] }];
    assert.equal(jsonText(sparse, 3), JSON.stringify(sparse));
    assert.equal(jsonBytes(sparse, 3).toString(), JSON.stringify(sparse));
  });
});

describe('jsonChunks', () => {
  it('appends the UTF-8 of JSON.stringify to the chunks it is given, a shared value as its kept bytes', () => {
    for (const { i, value, depth } of randomCases(11, 1000)) {
      for (let n = 0; n < 3; n++) {
        const chunks: Uint8Array[] = [Buffer.from('[')];
        jsonChunks(value, depth, chunks);
        chunks.push(Buffer.from(']'));
        assert.equal(Buffer.concat(chunks).toString('utf8'), `[${JSON.stringify(value)}]`, `case ${i}`);
      }
    }
    const shared = share({ document: 'kept' });
    jsonBytes(shared, 1);
    const kept = jsonBytes(shared, 1);
    const chunks: Uint8Array[] = [];
    jsonChunks({ data: shared }, 2, chunks);
    assert.ok(chunks.includes(kept), 'the shared value goes in as its kept bytes, uncopied');
  });
});
