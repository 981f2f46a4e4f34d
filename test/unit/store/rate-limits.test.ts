import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateCounter, type RateLimit } from '../../../src/store/rate-limits.ts';

// The in-memory rate counter (store/rate-limits.ts): fixed windows aligned to the clock it is
// given, one set of counts per named limit, per key.

const API: RateLimit = { name: 'api', limit: 3, windowSeconds: 60 };
const OAUTH: RateLimit = { name: 'oauth', limit: 3, windowSeconds: 60 };
const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0) + s * 1000);

describe('MemoryRateCounter', () => {
  it('counts a key down within its window, refuses past the limit, and says when it resets', async () => {
    const c = new MemoryRateCounter();
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await c.take(API, 'k', at(15)));
    assert.deepEqual(
      seen.map((d) => [d.allowed, d.remaining, d.resetSeconds]),
      [
        [true, 2, 45],
        [true, 1, 45],
        [true, 0, 45],
        [false, 0, 45],
      ],
    );
    assert.equal(seen[0]!.limit, 3);
    assert.equal(seen[0]!.windowSeconds, 60);
  });

  it('starts each window at a whole multiple of its length: the next one has the whole budget', async () => {
    const c = new MemoryRateCounter();
    for (let i = 0; i < 3; i++) await c.take(API, 'k', at(59.999));
    assert.equal((await c.take(API, 'k', at(59.999))).allowed, false);
    const next = await c.take(API, 'k', at(60));
    assert.deepEqual([next.allowed, next.remaining, next.resetSeconds], [true, 2, 60]);
  });

  it('keeps keys and limits apart', async () => {
    const c = new MemoryRateCounter();
    for (let i = 0; i < 3; i++) await c.take(API, 'a', at(1));
    assert.equal((await c.take(API, 'a', at(1))).allowed, false);
    assert.equal((await c.take(API, 'b', at(1))).remaining, 2, 'another key');
    assert.equal((await c.take(OAUTH, 'a', at(1))).remaining, 2, 'another limit, the same key');
  });
});
