import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { v0_8 } from '@a2ui/lit';
import { objectContents } from '../../../../../src/surfaces/shared/a2ui/data-model.ts';
import { deleteSurface, surfaceMessages } from '../../../../../src/surfaces/shared/a2ui/index.ts';
import { toPlain } from '../../../../support/a2ui-oracles.ts';
import { AWKWARD_CLAIMS, allSurfaces, GRANTS, PROPOSAL, REQUESTS } from './fixtures.ts';

// The official renderer's v0.8 message processor (@a2ui/lit, the one <a2ui-surface> reads) takes
// every surface without error, builds its tree from the root, and its data model at each path is
// the PPX object itself, unmodified (bindings/a2ui.md, "Data binding"). The processor needs no
// DOM: only the elements that draw it do, which the web app's browser tests cover.

describe('A2UI messages through the @a2ui/lit v0.8 message processor', () => {
  for (const [name, parts, object] of allSurfaces()) {
    it(`${name}: processed, rendered from its root, its data model the object; deleteSurface removes it`, () => {
      const processor = v0_8.Data.createSignalA2uiMessageProcessor();
      processor.processMessages(surfaceMessages(parts) as never);
      const surface = processor.getSurfaces().get(parts.surfaceId);
      assert.ok(surface, 'the surface is visible after beginRendering');
      assert.equal(surface.componentTree?.id, parts.root);
      const [first] = parts.data;
      assert.ok(first);
      assert.deepEqual(toPlain(read(processor, parts.surfaceId, first.path)), json(object), first.path);
      processor.processMessages([deleteSurface(parts.surfaceId)] as never);
      assert.equal(processor.getSurfaces().has(parts.surfaceId), false);
    });
  }

  it('a string that looks like JSON, a null and a key with a dot still read back as they were', () => {
    const objects = [
      ...AWKWARD_CLAIMS,
      { a: null, b: [1, { c: '[x]' }] },
      { 'dotted.key': 1 },
      { empty: [], inner: { empty: [] }, entries: [{ key: 'k', valueString: 'v' }] },
      { nested: { deeper: { deepest: [true] }, s: '{not json' } },
      PROPOSAL,
      GRANTS.expiring,
      REQUESTS.several,
    ];
    for (const object of objects) {
      const processor = v0_8.Data.createSignalA2uiMessageProcessor();
      processor.processMessages([
        { dataModelUpdate: { surfaceId: 's', path: '/x', contents: objectContents(object) } },
      ] as never);
      assert.deepEqual(toPlain(read(processor, 's', '/x')), json(object));
    }
  });
});

type Processor = ReturnType<typeof v0_8.Data.createSignalA2uiMessageProcessor>;

function read(processor: Processor, surfaceId: string, path: string): unknown {
  return processor.getData({ dataContextPath: '/' } as never, path, surfaceId);
}

/** The object as JSON says it (undefined members dropped), which is what a data model can hold. */
function json(object: unknown): unknown {
  return JSON.parse(JSON.stringify(object));
}
