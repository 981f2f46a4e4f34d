import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BASIC_CATALOG_V09,
  type ComponentV09,
  deleteSurfaceV09,
  type SurfaceParts,
  surfaceMessagesV09,
} from '../../../../../src/surfaces/shared/a2ui/index.ts';
import { actionOf, personStrings, typeOf } from '../../../../support/a2ui-oracles.ts';
import { listProblemsV09, messageProblemsV09, processorV09 } from '../../../../support/a2ui-v09.ts';
import { allSurfaces } from './fixtures.ts';

// Issue 25 item 5: every surface of every archetype, for every fixture object, as A2UI v0.9
// messages: each valid under the v0.9 JSON Schemas shipped in @a2ui/web_core (2020-12, with the
// basic catalog the surfaces name), the list valid as an A2A data part's `data`, taken by
// @a2ui/web_core's v0.9 MessageProcessor (which checks every component against the catalog), its
// data model the PPX object; and the same surface as in v0.8: same components, same words, same
// actions.

const SURFACES = allSurfaces();

type Processor = ReturnType<typeof processorV09>;
const surfaceOf = (processor: Processor, id: string) => processor.model.getSurface(id);
const componentsOf = (messages: ReturnType<typeof surfaceMessagesV09>): ComponentV09[] =>
  messages.flatMap((m) => ('updateComponents' in m ? [...m.updateComponents.components] : []));

/** The component ids a v0.9 component refers to (child, children). */
function referencedV09(c: ComponentV09): string[] {
  const out: string[] = [];
  if (typeof c['child'] === 'string') out.push(c['child']);
  if (Array.isArray(c['children'])) out.push(...(c['children'] as string[]));
  return out;
}

/** The words a person reads in a v0.9 surface: texts, labels, options (as personStrings for v0.8). */
function wordsV09(components: readonly ComponentV09[]): string[] {
  const out: string[] = [];
  const lit = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
  };
  for (const c of components) {
    if (c.component === 'Text') lit(c['text']);
    if (c.component === 'Icon') continue;
    lit(c['label']);
    for (const o of (c['options'] as Array<{ label: unknown }> | undefined) ?? []) lit(o.label);
  }
  return out;
}

/** The actions of a surface's Buttons as {name, context} with v0.8 bindings written in v0.9. */
function actionsV08(parts: SurfaceParts) {
  return parts.components
    .filter((c) => typeOf(c)[0] === 'Button')
    .map((c) => {
      const a = actionOf(c);
      const context = Object.fromEntries(
        a.context.map((e) => [e.key, 'path' in e.value ? { path: e.value.path } : Object.values(e.value)[0]]),
      );
      return { id: c.id, name: a.name, context };
    });
}

describe('A2UI v0.9 messages of the PPX archetypes', () => {
  it('the JSON Schema refuses a v0.8 message and a v0.8-shaped component, and accepts a real v0.9 one', () => {
    assert.notDeepEqual(messageProblemsV09({ beginRendering: { surfaceId: 's', root: 'r' } }), []);
    const v08Shaped = {
      version: 'v0.9',
      updateComponents: {
        surfaceId: 's',
        components: [{ id: 'root', component: { Text: { text: { literalString: 'Hello' } } } }],
      },
    };
    assert.notDeepEqual(messageProblemsV09(v08Shaped), []);
    const noVersion = { createSurface: { surfaceId: 's', catalogId: BASIC_CATALOG_V09 } };
    assert.notDeepEqual(messageProblemsV09(noVersion), [], 'version is required');
    const real = {
      version: 'v0.9',
      updateComponents: { surfaceId: 's', components: [{ id: 'root', component: 'Text', text: 'Hello' }] },
    };
    assert.deepEqual(messageProblemsV09(real), []);
    assert.notDeepEqual(listProblemsV09(real), [], 'a data part holds a list');
    assert.deepEqual(listProblemsV09([real]), []);
  });

  for (const [name, parts, object] of SURFACES) {
    it(`${name}: createSurface, updateComponents, updateDataModel and deleteSurface are valid v0.9`, () => {
      const messages = [...surfaceMessagesV09(parts), deleteSurfaceV09(parts.surfaceId)];
      assert.deepEqual(
        messages.map((m) => Object.keys(m).filter((k) => k !== 'version')[0]),
        ['createSurface', 'updateComponents', ...parts.data.map(() => 'updateDataModel'), 'deleteSurface'],
      );
      for (const m of messages) {
        assert.equal(m.version, 'v0.9');
        assert.deepEqual(messageProblemsV09(m), [], JSON.stringify(m).slice(0, 400));
      }
      assert.deepEqual(listProblemsV09(messages), []);
      const created = messages[0] as { createSurface: { catalogId: string } };
      assert.equal(created.createSurface.catalogId, BASIC_CATALOG_V09);
    });

    it(`${name}: one root, every id referred to is in the surface, every component reachable`, () => {
      const components = componentsOf(surfaceMessagesV09(parts));
      const ids = components.map((c) => c.id);
      assert.equal(new Set(ids).size, ids.length, 'unique');
      assert.equal(ids.filter((id) => id === 'root').length, 1, 'exactly one component is the root');
      for (const c of components)
        for (const ref of referencedV09(c)) assert.ok(ids.includes(ref), `${c.id} -> ${ref}`);
      const seen = new Set<string>();
      const walk = (id: string) => {
        if (seen.has(id)) return;
        seen.add(id);
        const c = components.find((x) => x.id === id);
        for (const ref of c ? referencedV09(c) : []) walk(ref);
      };
      walk('root');
      assert.deepEqual([...seen].sort(), [...ids].sort());
    });

    it(`${name}: the same surface as v0.8: components, words and actions`, () => {
      const components = componentsOf(surfaceMessagesV09(parts));
      const rename = (id: string) => (id === parts.root ? 'root' : id);
      assert.deepEqual(
        components.map((c) => [c.id, c.component]),
        parts.components.map((c) => {
          const type = typeOf(c)[0];
          return [rename(c.id), type === 'MultipleChoice' ? 'ChoicePicker' : type];
        }),
      );
      assert.deepEqual(wordsV09(components), personStrings(parts));
      const actions = components
        .filter((c) => c.component === 'Button')
        .map((c) => {
          const event = (c['action'] as { event: { name: string; context: Record<string, unknown> } }).event;
          return { id: c.id, name: event.name, context: event.context };
        });
      assert.deepEqual(actions, actionsV08(parts));
    });

    it(`${name}: taken by the v0.9 MessageProcessor, its data model the object; deleteSurface removes it`, () => {
      const processor = processorV09();
      processor.processMessages(surfaceMessagesV09(parts) as never);
      const surface = surfaceOf(processor, parts.surfaceId);
      assert.ok(surface, 'the surface exists');
      assert.equal(surface.catalog.id, BASIC_CATALOG_V09);
      assert.ok(surface.componentsModel.get('root'), 'the root is a component');
      const [first] = parts.data;
      assert.ok(first);
      assert.deepEqual(surface.dataModel.get(first.path), JSON.parse(JSON.stringify(object)), first.path);
      processor.processMessages([deleteSurfaceV09(parts.surfaceId)] as never);
      assert.equal(surfaceOf(processor, parts.surfaceId), undefined);
    });
  }

  it('the v0.9 processor refuses a component the catalog does not allow (it checks, so passing means something)', (t) => {
    t.mock.method(console, 'error', () => {}); // the processor logs what it refuses
    const processor = processorV09();
    assert.throws(() =>
      processor.processMessages([
        { version: 'v0.9', createSurface: { surfaceId: 's', catalogId: BASIC_CATALOG_V09 } },
        {
          version: 'v0.9',
          updateComponents: { surfaceId: 's', components: [{ id: 'root', component: 'Slider', value: 'x' }] },
        },
      ] as never),
    );
  });
});
