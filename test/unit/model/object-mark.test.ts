import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObjectMark } from '../../../src/model/object-mark.ts';

// A mark replaces a WeakSet/WeakMap entry for short-lived objects (model/object-mark.ts): it must
// be as invisible as one (JSON, keys, spreads, equality) and say "not known" when it cannot be set.
describe('ObjectMark', () => {
  it('keeps a value on the object, invisible to JSON, keys, spreads and deep equality', () => {
    const kind = new ObjectMark<string>('kind');
    const event = { id: 'e1', keys: ['a'] };
    assert.equal(kind.set(event, 'grant'), event);
    assert.equal(kind.get(event), 'grant');
    assert.equal(kind.has(event), true);
    assert.equal(JSON.stringify(event), '{"id":"e1","keys":["a"]}');
    assert.deepEqual(Object.keys(event), ['id', 'keys']);
    assert.deepStrictEqual(event, { id: 'e1', keys: ['a'] });
    assert.equal(kind.has({ ...event }), false, 'a copy is not marked');
    assert.equal(kind.has(structuredClone(event)), false);
  });

  it('is its own: another mark, or another object, does not see it', () => {
    const a = new ObjectMark('a');
    const b = new ObjectMark('b');
    const target = {};
    a.set(target, true);
    assert.equal(b.has(target), false);
    assert.equal(a.has({}), false);
  });

  it('is taken once', () => {
    const minted = new ObjectMark('minted');
    const event = minted.set({ id: 'e2' }, true);
    assert.equal(minted.take(event), true);
    assert.equal(minted.take(event), undefined);
    assert.equal(minted.has(event), false);
    assert.equal(JSON.stringify(event), '{"id":"e2"}');
  });

  it('leaves an object that cannot take it unmarked, without throwing', () => {
    const mark = new ObjectMark('m');
    const frozen = Object.freeze({ id: 'f' });
    mark.set(frozen, true);
    assert.equal(mark.has(frozen), false);
    assert.equal(mark.take(frozen), undefined);
  });
});
