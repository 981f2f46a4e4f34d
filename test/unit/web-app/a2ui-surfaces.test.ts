import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  deleteSurface,
  deleteSurfaceV09,
  type SurfaceParts,
  surfaceMessages,
  surfaceMessagesV09,
} from '../../../src/surfaces/shared/a2ui/index.ts';
import type { Part, SurfaceAction } from '../../../web/app/src/a2ui-surfaces.ts';
import { SurfacesV08 } from '../../../web/app/src/a2ui-surfaces-v08.ts';
import { SurfacesV09 } from '../../../web/app/src/a2ui-surfaces-v09.ts';
import { allSurfaces } from '../surfaces/shared/a2ui/fixtures.ts';

// The web app's renderer reads each A2UI version's tree (web_core's v0.8 processor; web_core's
// v0.9 MessageProcessor and NodeResolver) into the same parts, which one drawing code turns into
// HTML (a2ui-renderer.ts). For every surface of every fixture: both versions give the same parts
// (ids, types, words, values, options), each Button's press sends the same action with the same
// context, resolved from the data model (v0.9: by web_core's action closure), and a control's
// write reaches the data model and the action that reads it.

const SURFACES = allSurfaces();

/** A part without its closures, for comparing. */
function shape(p: Part): unknown {
  const { write, press, children, ...rest } = p;
  return {
    ...rest,
    writable: write !== undefined,
    pressable: press !== undefined,
    children: children.map(shape),
  };
}

function all(p: Part): Part[] {
  return [p, ...p.children.flatMap(all)];
}

function both(parts: SurfaceParts) {
  const v08 = new SurfacesV08();
  const v09 = new SurfacesV09();
  v08.process(surfaceMessages(parts));
  v09.process(surfaceMessagesV09(parts));
  return { v08, v09 };
}

describe('web app renderer: v0.8 and v0.9 read into the same parts', () => {
  for (const [name, parts] of SURFACES) {
    it(`${name}: same parts, same actions`, () => {
      const { v08, v09 } = both(parts);
      const got08: SurfaceAction[] = [];
      const got09: SurfaceAction[] = [];
      const tree08 = v08.tree(parts.surfaceId, (a) => got08.push(a));
      const tree09 = v09.tree(parts.surfaceId, (a) => got09.push(a), parts.root);
      assert.ok(tree08 && tree09, 'both versions have a tree');
      assert.equal(tree09.id, parts.root, 'the v0.9 root is drawn with the surface root id');
      assert.deepEqual(shape(tree09), shape(tree08));
      const buttons08 = all(tree08).filter((p) => p.type === 'Button');
      const buttons09 = all(tree09).filter((p) => p.type === 'Button');
      assert.equal(buttons09.length, buttons08.length);
      for (const b of buttons08) b.press?.();
      for (const b of buttons09) b.press?.();
      assert.equal(got09.length, buttons09.length, 'every press reached onAction, at once');
      assert.deepEqual(got09, got08);
      for (const a of got09) assert.equal(a.surfaceId, parts.surfaceId);
    });
  }
});

describe('web app renderer: controls write the data model the actions read', () => {
  const consent = SURFACES.find(([, p]) => p.surfaceId.startsWith('ppx-consent-'));
  const slider = SURFACES.find(([, p]) => p.components.some((c) => 'Slider' in c.component));
  assert.ok(consent && slider);

  for (const version of ['v0.8', 'v0.9'] as const) {
    it(`${version}: a consent form's boxes, date and choice reach the edit action`, () => {
      const parts = consent[1];
      const { v08, v09 } = both(parts);
      const s = version === 'v0.8' ? v08 : v09;
      const got: SurfaceAction[] = [];
      const tree = s.tree(parts.surfaceId, (a) => got.push(a), parts.root);
      assert.ok(tree);
      const parts_ = all(tree);
      const box = parts_.find((p) => p.type === 'CheckBox');
      const date = parts_.find((p) => p.type === 'DateTimeInput');
      const choice = parts_.find((p) => p.type === 'ChoicePicker');
      assert.ok(box?.write && date?.write && choice?.write);
      assert.equal(box.value, true);
      box.write(false);
      date.write('2027-03-10');
      const last = choice.options.at(-1);
      assert.ok(last);
      choice.write([last.value]);
      all(tree)
        .find((p) => p.action === 'edit')
        ?.press?.();
      assert.equal(got.length, 1);
      const sent = got[0] as SurfaceAction;
      assert.equal(sent.name, 'edit');
      const choiceSent = sent.context['choice'] as Record<string, Record<string, unknown> | unknown>;
      const [kind, index] = box.id.split('-').slice(-2) as [string, string];
      assert.equal((choiceSent[kind] as Record<string, unknown>)[index], false);
      assert.equal(choiceSent['expires_at'], '2027-03-10');
      assert.ok(Object.values(choiceSent).some((v) => Array.isArray(v) && v[0] === last.value));
      // Drawn again, the tree shows what was set.
      const again = all(s.tree(parts.surfaceId, () => undefined, parts.root) as Part);
      assert.equal(again.find((p) => p.id === box.id)?.value, false);
      assert.equal(again.find((p) => p.id === date.id)?.value, '2027-03-10');
    });

    it(`${version}: a slider's value reaches the edit action's value_percent`, () => {
      const parts = slider[1];
      const { v08, v09 } = both(parts);
      const s = version === 'v0.8' ? v08 : v09;
      const got: SurfaceAction[] = [];
      const tree = s.tree(parts.surfaceId, (a) => got.push(a), parts.root);
      assert.ok(tree);
      const range = all(tree).find((p) => p.type === 'Slider');
      assert.ok(range?.write);
      range.write(17);
      all(tree)
        .find((p) => p.action === 'edit')
        ?.press?.();
      assert.equal(got[0]?.context['value_percent'], 17);
    });
  }

  it('v0.9: a surface deleted and made again is read afresh; a refused message throws', () => {
    const parts = slider[1];
    const s = new SurfacesV09();
    s.process(surfaceMessagesV09(parts));
    const first = s.tree(parts.surfaceId, () => undefined, parts.root);
    all(first as Part)
      .find((p) => p.type === 'Slider')
      ?.write?.(3);
    s.process([deleteSurfaceV09(parts.surfaceId)]);
    assert.equal(s.has(parts.surfaceId), false);
    assert.equal(
      s.tree(parts.surfaceId, () => undefined),
      undefined,
    );
    s.process(surfaceMessagesV09(parts));
    const second = all(s.tree(parts.surfaceId, () => undefined, parts.root) as Part);
    assert.notEqual(second.find((p) => p.type === 'Slider')?.value, 3);
    assert.throws(() => s.process([{ version: 'v0.9', deleteSurface: {} } as never]));
    const v08 = new SurfacesV08();
    v08.process(surfaceMessages(parts));
    v08.process([deleteSurface(parts.surfaceId)]);
    assert.equal(v08.has(parts.surfaceId), false);
  });
});
