import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deleteSurface, surfaceMessages } from '../../../../../src/surfaces/shared/a2ui/index.ts';
import { messageProblems, personStrings, referencedIds } from '../../../../support/a2ui-oracles.ts';
import { allSurfaces } from './fixtures.ts';

// Every message every archetype produces, for every fixture object, is a valid A2UI v0.8 message
// under both oracles, is complete on its own (every id it refers to is in it), uses only
// prefixed, unique ids, and speaks to a person in plain words.

const SURFACES = allSurfaces();

describe('A2UI v0.8 messages of the PPX archetypes', () => {
  it('the oracles refuse what bindings/a2ui.md sketches ({type, children}) and accept a real card', () => {
    const sketch = {
      surfaceUpdate: {
        surfaceId: 's',
        components: [{ id: 'claim-card-1', type: 'Card', children: ['claim-title-1'] }],
      },
    };
    assert.notDeepEqual(messageProblems(sketch), []);
    const real = {
      surfaceUpdate: {
        surfaceId: 's',
        components: [
          { id: 'ppx-c', component: { Card: { child: 'ppx-t' } } },
          { id: 'ppx-t', component: { Text: { text: { literalString: 'Hello' } } } },
        ],
      },
    };
    assert.deepEqual(messageProblems(real), []);
    const dangling = {
      surfaceUpdate: {
        surfaceId: 's',
        components: [{ id: 'ppx-c', component: { Card: { child: 'ppx-gone' } } }],
      },
    };
    assert.notDeepEqual(messageProblems(dangling), [], 'zod checks references');
  });

  for (const [name, parts] of SURFACES) {
    it(`${name}: surfaceUpdate, dataModelUpdate, beginRendering and deleteSurface are valid v0.8`, () => {
      const messages = [...surfaceMessages(parts), deleteSurface(parts.surfaceId)];
      assert.deepEqual(
        messages.map((m) => Object.keys(m)[0]),
        ['surfaceUpdate', ...parts.data.map(() => 'dataModelUpdate'), 'beginRendering', 'deleteSurface'],
      );
      for (const m of messages) assert.deepEqual(messageProblems(m), [], JSON.stringify(m).slice(0, 400));
    });

    it(`${name}: every id referred to is in the same surfaceUpdate; ids are prefixed and unique`, () => {
      const ids = parts.components.map((c) => c.id);
      assert.equal(new Set(ids).size, ids.length, 'unique');
      for (const id of ids) assert.ok(id.startsWith(`${parts.surfaceId}-`), id);
      assert.ok(parts.surfaceId.startsWith('ppx-'));
      assert.ok(ids.includes(parts.root), 'the root is a component');
      for (const c of parts.components) {
        for (const ref of referencedIds(c)) assert.ok(ids.includes(ref), `${c.id} -> ${ref}`);
      }
      // Every component is reachable from the root: nothing is sent that is never shown.
      const seen = new Set<string>();
      const walk = (id: string) => {
        if (seen.has(id)) return;
        seen.add(id);
        for (const r of referencedIds(parts.components.find((c) => c.id === id) as never)) walk(r);
      };
      walk(parts.root);
      assert.deepEqual([...ids].sort(), [...seen].sort());
    });

    it(`${name}: every string a person reads is plain words`, () => {
      const strings = personStrings(parts);
      assert.ok(strings.length > 2);
      const ids = new Set(parts.components.map((c) => c.id));
      for (const s of strings) {
        assert.ok(s.trim().length > 0, 'no empty text');
        assert.ok(!ids.has(s), `"${s}" would be replaced by a component`);
        assert.doesNotMatch(s, /\b(MUST|SHOULD|SHALL|REQUIRED|RECOMMENDED)\b/, s);
        assert.doesNotMatch(s, /\[\s*0(\.0)?\s*,\s*1(\.0)?\s*\]/, s);
        assert.doesNotMatch(s, /[{}[\]]/, `no JSON: ${s}`);
        assert.doesNotMatch(s, /\b[a-z0-9]+_[a-z0-9_]+\b/, `no bare key or vocabulary names: ${s}`);
        assert.doesNotMatch(s, /ppx:|undefined|NaN|null|\[object/, s);
      }
    });
  }
});
