import type { Part, Task } from '@a2a-js/sdk';
import type { Claim } from '../../model/claim.ts';
import {
  BASIC_CATALOG_V09,
  claimCard,
  type SurfaceParts,
  surfaceMessages,
  surfaceMessagesV09,
} from '../shared/a2ui/index.ts';

// The A2UI extension of A2A ("A2UI over A2A"), in its two versions: a client that activates one
// (the `A2A-Extensions` header naming its URI) gets, beside the PPX object, the A2UI messages that
// draw it, as data parts marked `metadata.mimeType: application/json+a2ui`. Made by the one
// component module the person's web app uses too (surfaces/shared/a2ui/): a claim result (an
// effective profile, a query) is one ClaimCard surface per claim. Other results have no component
// of their own and go without.
//
// - v0.8 (`…/a2ui/v0.8`): one message per data part (`surfaceUpdate`, `dataModelUpdate`,
//   `beginRendering`), as the v0.8 extension sends them.
// - v0.9 (`…/a2ui/v0.9`, A2UI v0.9 extension spec): one data part per surface whose `data` is the
//   list of its messages (`createSurface`, `updateComponents`, `updateDataModel`), which a
//   renderer applies together; the surfaces use the basic catalog. A client may say which
//   catalogs it renders in the message's `metadata.a2uiClientCapabilities["v0.9"]
//   .supportedCatalogIds`: one that names catalogs but not the basic one gets no v0.9 parts.
//
// A2A 0.3's DataPart holds an object, not a list: there the list is wrapped as `{messages: [...]}`
// (A2UI v0.9 server_to_client_list_wrapper.json, made for such protocols).
//
// A client that names both URIs gets v0.9 (the newer; it said it renders either).

export type A2uiVersion = '0.8' | '0.9';
export const A2UI_EXTENSION = 'https://a2ui.org/a2a-extension/a2ui/v0.8';
export const A2UI_EXTENSION_V09 = 'https://a2ui.org/a2a-extension/a2ui/v0.9';
export const A2UI_EXTENSIONS: Readonly<Record<A2uiVersion, string>> = {
  '0.8': A2UI_EXTENSION,
  '0.9': A2UI_EXTENSION_V09,
};
export const A2UI_MIME = 'application/json+a2ui';
/** The v0.8 standard catalog, which every v0.8 surface here is drawn with (beginRendering names none). */
export const STANDARD_CATALOG_V08 = 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json';
/** The catalogs each version's surfaces use, as the card's extension params list them. */
export const A2UI_CATALOGS: Readonly<Record<A2uiVersion, string>> = {
  '0.8': STANDARD_CATALOG_V08,
  '0.9': BASIC_CATALOG_V09,
};

/**
 * The A2UI version a request activated (A2A 1.0 `A2A-Extensions`, 0.3 `X-A2A-Extensions`), or
 * none; `capabilities` is the `a2uiClientCapabilities` of the message sent, when there is one.
 */
export function chosenA2ui(header: string | undefined, capabilities?: unknown): A2uiVersion | undefined {
  const named = new Set((header ?? '').split(',').map((uri) => uri.trim()));
  if (named.has(A2UI_EXTENSION_V09) && rendersBasicCatalog(capabilities)) return '0.9';
  if (named.has(A2UI_EXTENSION)) return '0.8';
  return undefined;
}

/** Whether a v0.9 client's capabilities allow the basic catalog: yes unless it lists others only. */
function rendersBasicCatalog(capabilities: unknown): boolean {
  const v09 = (capabilities as Record<string, unknown> | null | undefined)?.['v0.9'] as
    | { supportedCatalogIds?: unknown }
    | undefined;
  const ids = v09?.supportedCatalogIds;
  return !Array.isArray(ids) || ids.includes(BASIC_CATALOG_V09);
}

/** How a call is drawn: the A2UI version it activated, and the A2A version it speaks. */
export interface Drawing {
  readonly a2ui: A2uiVersion;
  readonly a2a: string;
}

/** The A2UI parts that draw a PPX result as the call asks (none for a result of no claims). */
export function a2uiParts(value: unknown, now: Date, drawing: Drawing): Part[] {
  const claims = (value as { claims?: unknown } | null)?.claims;
  if (!Array.isArray(claims)) return [];
  const surfaces = (claims as Claim[]).map((claim) => claimCard(claim, now));
  if (drawing.a2ui === '0.8') return surfaces.flatMap(partsV08);
  const wrap = drawing.a2a === '0.3';
  return surfaces.map((surface) => {
    const messages = surfaceMessagesV09(surface);
    return part(wrap ? { messages } : messages);
  });
}

const part = (data: unknown): Part => ({
  content: { $case: 'data' as const, value: data },
  metadata: { mimeType: A2UI_MIME },
  filename: '',
  mediaType: A2UI_MIME,
});

/** v0.8: one message a part. */
const partsV08 = (surface: SurfaceParts): Part[] => surfaceMessages(surface).map(part);

/** Whether a part is one of the A2UI messages a2uiParts makes. */
function isDrawing(part: Part): boolean {
  return part.mediaType === A2UI_MIME || part.metadata?.['mimeType'] === A2UI_MIME;
}

/**
 * The task as it is stored: its results without their A2UI parts, which are the bulk of a drawn
 * claim result (issue 22 item 11: a 200 KB claim drew 3 MB) and are made again from the PPX
 * object on each read (drawn).
 */
export function undrawn(task: Task): Task {
  return {
    ...task,
    artifacts: task.artifacts.map((a) => ({ ...a, parts: a.parts.filter((part) => !isDrawing(part)) })),
  };
}

/** A stored task with the A2UI parts of each result drawn again (as `drawing` says, at `now`) after its PPX object. */
export function drawn(task: Task, now: Date, drawing: Drawing): Task {
  return {
    ...task,
    artifacts: task.artifacts.map((a) => {
      const [first, ...rest] = a.parts.filter((part) => !isDrawing(part));
      if (first?.content?.$case !== 'data') return a;
      return { ...a, parts: [first, ...a2uiParts(first.content.value, now, drawing), ...rest] };
    }),
  };
}
