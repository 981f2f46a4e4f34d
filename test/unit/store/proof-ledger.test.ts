import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryProofLedger } from '../../../src/store/proof-ledger.ts';

// The in-memory DPoP replay ledger of a SQLite provider (RFC 9449 §11.1; docs/oauth.md "DPoP"):
// a key is taken once until it expires, and the ledger is bounded: full of live proofs, it refuses
// new ones rather than forget one (which would let it be replayed).

const at = (ms: number) => new Date(ms);

describe('MemoryProofLedger', () => {
  it('takes a key once until it expires, then again', async () => {
    const ledger = new MemoryProofLedger();
    assert.equal(await ledger.take('a', 1_000, at(0)), true);
    assert.equal(await ledger.take('a', 1_000, at(999)), false);
    assert.equal(await ledger.take('a', 5_000, at(1_000)), true);
    assert.equal(await ledger.take('b', 1_000, at(1_000)), true);
  });

  it('at its size cap refuses new proofs and forgets none of the live ones', async () => {
    const ledger = new MemoryProofLedger(3);
    for (const key of ['a', 'b', 'c']) assert.equal(await ledger.take(key, 60_000, at(0)), true);
    assert.equal(ledger.size, 3);
    // Full of live proofs: a new one is refused, and nothing was dropped to make room.
    assert.equal(await ledger.take('d', 60_000, at(1)), false);
    assert.equal(await ledger.take('e', 60_000, at(20_000)), false);
    assert.equal(ledger.size, 3);
    for (const key of ['a', 'b', 'c']) assert.equal(await ledger.take(key, 60_000, at(30_000)), false, key);
    // Once they expire, the full ledger prunes them and takes new proofs again.
    assert.equal(await ledger.take('d', 120_000, at(60_000)), true);
    assert.equal(ledger.size, 1);
  });

  it('prunes expired entries as new ones come (every 10 s), so it holds only live proofs', async () => {
    const ledger = new MemoryProofLedger(1_000);
    for (let i = 0; i < 100; i++) assert.equal(await ledger.take(`k${i}`, 5_000, at(0)), true);
    assert.equal(ledger.size, 100);
    assert.equal(await ledger.take('late', 20_000, at(10_000)), true);
    assert.equal(ledger.size, 1);
  });
});
