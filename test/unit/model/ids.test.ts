import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namespaceOfKey, normalizeKey, qualifiedKey } from '../../../src/model/claim.ts';
import { type IdType, idPattern, isId, newId } from '../../../src/model/ids.ts';

// (e) Identifiers and claim-key helpers.

const TYPES: IdType[] = ['profile', 'claim', 'modifier', 'grant', 'evidence', 'view', 'provider', 'event'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The official schemas' id pattern for each type. */
const official = (type: string) => new RegExp(`^ppx:${type}:[A-Za-z0-9_.:-]+$`);

describe('newId', () => {
  for (const type of TYPES) {
    it(`newId('${type}') is ppx:${type}:<uuid v4> and matches the official pattern`, () => {
      const id = newId(type);
      assert.ok(id.startsWith(`ppx:${type}:`), id);
      assert.match(id.slice(`ppx:${type}:`.length), UUID);
      assert.match(id, official(type));
      assert.equal(isId(type, id), true);
    });
  }

  it('10 000 ids are all distinct', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('claim')));
    assert.equal(ids.size, 10_000);
  });

  it('an id of one type is not an id of another', () => {
    assert.equal(isId('grant', newId('claim')), false);
    assert.equal(isId('claim', 'ppx:claim:'), false);
    assert.equal(isId('claim', 'ppx:claim:a b'), false);
    assert.equal(isId('claim', 'xppx:claim:a'), false);
    assert.equal(isId('claim', 'ppx:claim:a/b'), false);
    assert.equal(isId('claim', 'ppx:claim:quiz:12.v2_x-y'), true);
  });

  it('idPattern is anchored', () => {
    assert.equal(idPattern('grant').test('ppx:grant:abc\nppx:grant:'), false);
    assert.equal(idPattern('grant').source, '^ppx:grant:[A-Za-z0-9_.:-]+$');
  });
});

describe('claim keys', () => {
  it('qualifiedKey: core unprefixed, domain keys namespace.key', () => {
    assert.equal(qualifiedKey({ namespace: 'core', key: 'novelty_tolerance' }), 'novelty_tolerance');
    assert.equal(
      qualifiedKey({ namespace: 'fragrance', key: 'family_preference' }),
      'fragrance.family_preference',
    );
  });

  it('normalizeKey strips only a leading core. prefix', () => {
    assert.equal(normalizeKey('core.novelty_tolerance'), 'novelty_tolerance');
    assert.equal(normalizeKey('novelty_tolerance'), 'novelty_tolerance');
    assert.equal(normalizeKey('fragrance.family_preference'), 'fragrance.family_preference');
    assert.equal(normalizeKey('xcore.novelty_tolerance'), 'xcore.novelty_tolerance');
    assert.equal(normalizeKey('core'), 'core');
  });

  it('namespaceOfKey', () => {
    assert.equal(namespaceOfKey('novelty_tolerance'), 'core');
    assert.equal(namespaceOfKey('core.novelty_tolerance'), 'core');
    assert.equal(namespaceOfKey('fragrance.family_preference'), 'fragrance');
    assert.equal(namespaceOfKey('travel.accommodation_style'), 'travel');
    assert.equal(namespaceOfKey('weather.rain.heavy'), 'weather');
  });

  it('qualifiedKey and normalizeKey round-trip for every namespace', () => {
    for (const c of [
      { namespace: 'core', key: 'risk_tolerance' },
      { namespace: 'travel', key: 'pace_preference' },
    ]) {
      const q = qualifiedKey(c);
      assert.equal(normalizeKey(q), q);
      assert.equal(namespaceOfKey(q), c.namespace);
      assert.equal(normalizeKey(`core.${c.key}`) === q, c.namespace === 'core');
    }
  });
});
