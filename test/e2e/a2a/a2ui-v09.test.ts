import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Part, Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import {
  A2UI_EXTENSION,
  A2UI_EXTENSION_V09,
  A2UI_MIME,
  STANDARD_CATALOG_V08,
} from '../../../src/surfaces/a2a/a2ui-parts.ts';
import { BASIC_CATALOG_V09 } from '../../../src/surfaces/shared/a2ui/index.ts';
import { a2aGrant, ask, bearerFetch, isTask, resultOf } from '../../support/a2a-client.ts';
import { messageProblems } from '../../support/a2ui-oracles.ts';
import { listProblemsV09, processorV09 } from '../../support/a2ui-v09.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Issue 25 item 5: the A2UI extension in both versions. The card lists both URIs with the
// catalogs each draws with; a client that activates the v0.9 URI gets one data part per
// ClaimCard surface whose `data` is the list of its v0.9 messages, valid under the v0.9 schemas
// and taken by @a2ui/web_core's v0.9 processor; the v0.8 URI still gets v0.8; both named gets
// v0.9 unless the client's a2uiClientCapabilities lists catalogs without the basic one. A stored
// task is drawn again in the version each read asks for.

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are checked member by member
type Any = any;

/** An SDK client that sends `extensions` in A2A-Extensions on every call and keeps the last answer's. */
async function drawingClient(p: TestProvider, token: string, extensions: string) {
  const withToken = bearerFetch(token);
  const seen: { activated: string | null } = { activated: null };
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('A2A-Extensions', extensions);
    const r = await withToken(input, { ...init, headers });
    if (String(input).endsWith('/a2a')) seen.activated = r.headers.get('A2A-Extensions');
    return r;
  };
  const client: Client = await new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  }).createFromUrl(p.url);
  return { client, seen };
}

const drawnParts = (task: Task): Part[] =>
  (task.artifacts[0]?.parts ?? []).filter(
    (x) => x.mediaType === A2UI_MIME || x.metadata?.['mimeType'] === A2UI_MIME,
  );

const dataOf = (part: Part): unknown => (part.content?.$case === 'data' ? part.content.value : undefined);

/** Asserts every part is a valid v0.9 list for one surface, and returns the surface ids. */
function assertV09(parts: Part[]): string[] {
  const processor = processorV09();
  const ids: string[] = [];
  for (const part of parts) {
    assert.equal(part.metadata?.['mimeType'], A2UI_MIME);
    const list = dataOf(part) as Any[];
    assert.ok(Array.isArray(list), 'a v0.9 part holds a list of messages');
    assert.deepEqual(listProblemsV09(list), [], JSON.stringify(list).slice(0, 300));
    assert.deepEqual(
      list.map((m) => Object.keys(m).find((k) => k !== 'version')),
      ['createSurface', 'updateComponents', 'updateDataModel', 'updateDataModel'].slice(0, list.length),
    );
    assert.equal(list[0].createSurface.catalogId, BASIC_CATALOG_V09);
    processor.processMessages(list as never);
    ids.push(list[0].createSurface.surfaceId);
  }
  for (const id of ids) assert.ok(processor.model.getSurface(id), id);
  return ids;
}

describe('A2A preference agent: the A2UI extension in v0.9 and v0.8', () => {
  let p: TestProvider;
  let token = '';
  before(async () => {
    p = await startTestProvider();
    token = (await a2aGrant(p)).token;
  });
  after(async () => p.close());

  it('the card lists both versions, each with the catalog it draws with', async () => {
    const { client } = await drawingClient(p, token, A2UI_EXTENSION_V09);
    const card = await client.getAgentCard();
    const byUri = new Map((card.capabilities?.extensions ?? []).map((e) => [e.uri, e]));
    assert.deepEqual(byUri.get(A2UI_EXTENSION_V09)?.params, {
      supportedCatalogIds: [BASIC_CATALOG_V09],
      acceptsInlineCatalogs: false,
    });
    assert.deepEqual(byUri.get(A2UI_EXTENSION)?.params, {
      supportedCatalogIds: [STANDARD_CATALOG_V08],
      acceptsInlineCatalogs: false,
    });
    assert.equal(byUri.get(A2UI_EXTENSION_V09)?.required, false);
    const legacy = (await (await fetch(`${p.url}/.well-known/agent-card.json`)).json()) as Any;
    assert.deepEqual(
      legacy.capabilities.extensions.map((e: Any) => [e.uri, e.params.supportedCatalogIds]),
      [
        [A2UI_EXTENSION_V09, [BASIC_CATALOG_V09]],
        [A2UI_EXTENSION, [STANDARD_CATALOG_V08]],
      ],
      'the 0.3 card lists the same',
    );
  });

  it('the SDK client activating v0.9 gets one valid v0.9 surface per claim, and the answer names v0.9', async () => {
    const { client, seen } = await drawingClient(p, token, A2UI_EXTENSION_V09);
    const task = await client.sendMessage(ask('get_effective_profile', { context: {} }));
    assert.ok(isTask(task));
    assert.equal(seen.activated, A2UI_EXTENSION_V09);
    const claims = (resultOf(task) as { claims: { claim_id: string }[] }).claims;
    assert.ok(claims.length > 0);
    const ids = assertV09(drawnParts(task));
    assert.equal(ids.length, claims.length, 'one surface per claim');

    // The stored task, read again: drawn in the version each read asks for.
    const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    assert.deepEqual(assertV09(drawnParts(again)), ids);
    const v08 = await drawingClient(p, token, A2UI_EXTENSION);
    const old = await v08.client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    assert.equal(v08.seen.activated, A2UI_EXTENSION);
    const oldParts = drawnParts(old);
    assert.ok(oldParts.length >= claims.length * 3);
    for (const part of oldParts) assert.deepEqual(messageProblems(dataOf(part)), []);
  });

  it('a stream activating v0.9 carries the same v0.9 parts', async () => {
    const { client } = await drawingClient(p, token, A2UI_EXTENSION_V09);
    let task: Task | undefined;
    for await (const event of client.sendMessageStream(ask('get_effective_profile', { context: {} }))) {
      if (event.payload?.$case === 'task') task = event.payload.value;
    }
    assert.ok(task);
    assert.ok(assertV09(drawnParts(task)).length > 0);
  });

  describe('on the wire', () => {
    const send = async (headers: Record<string, string>, metadata?: unknown, legacy = false) => {
      const message = {
        messageId: `m-${Math.random()}`,
        role: legacy ? 'user' : 'ROLE_USER',
        ...(legacy ? { kind: 'message' } : {}),
        parts: [
          legacy
            ? { kind: 'data', data: { method: 'get_effective_profile', params: { context: {} } } }
            : {
                data: { method: 'get_effective_profile', params: { context: {} } },
                mediaType: 'application/json',
              },
        ],
        ...(metadata !== undefined ? { metadata } : {}),
      };
      const r = await fetch(`${p.url}/a2a`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          ...(legacy ? {} : { 'A2A-Version': '1.0' }),
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: legacy ? 'message/send' : 'SendMessage',
          params: { message },
        }),
      });
      const json = (await r.json()) as Any;
      const task = legacy ? json.result : json.result.task;
      const [, ...ui] = task.artifacts[0].parts;
      return { activated: r.headers.get('A2A-Extensions'), ui: ui as Any[] };
    };

    it('both URIs named: v0.9; with capabilities that leave out the basic catalog: v0.8; neither: none', async () => {
      const both = `${A2UI_EXTENSION}, ${A2UI_EXTENSION_V09}`;
      const v09 = await send({ 'A2A-Extensions': both });
      assert.equal(v09.activated, A2UI_EXTENSION_V09);
      for (const part of v09.ui) assert.deepEqual(listProblemsV09(part.data), []);
      assert.ok(v09.ui.length > 0);

      const caps = {
        a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: ['https://example.com/other.json'] } },
      };
      const fallback = await send({ 'A2A-Extensions': both }, caps);
      assert.equal(fallback.activated, A2UI_EXTENSION);
      for (const part of fallback.ui) assert.deepEqual(messageProblems(part.data), []);

      const onlyOther = await send({ 'A2A-Extensions': A2UI_EXTENSION_V09 }, caps);
      assert.equal(onlyOther.activated, null, 'nothing this client renders: not activated');
      assert.deepEqual(onlyOther.ui, []);

      const basic = { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_V09] } } };
      const declared = await send({ 'A2A-Extensions': A2UI_EXTENSION_V09 }, basic);
      assert.equal(declared.activated, A2UI_EXTENSION_V09);
      assert.equal(declared.ui.length, v09.ui.length);
    });

    it('an A2A 0.3 client (X-A2A-Extensions, message/send) gets the same v0.9 lists, wrapped as {messages}', async () => {
      const legacy = await send({ 'X-A2A-Extensions': A2UI_EXTENSION_V09 }, undefined, true);
      assert.equal(legacy.activated, A2UI_EXTENSION_V09);
      assert.ok(legacy.ui.length > 0);
      for (const part of legacy.ui) {
        assert.equal(part.kind, 'data');
        assert.equal(part.metadata.mimeType, A2UI_MIME);
        assert.deepEqual(Object.keys(part.data), ['messages'], 'A2A 0.3 data is an object: the list wrapped');
        assert.deepEqual(listProblemsV09(part.data.messages), [], JSON.stringify(part).slice(0, 300));
      }
    });
  });
});
