import type { Component, DataEntry, SurfaceParts } from './messages.ts';

// The same surfaces as A2UI v0.9 messages (`createSurface`, `updateComponents`, `updateDataModel`,
// `deleteSurface`, each with `version: "v0.9"`), for a client that renders v0.9 (docs/a2ui.md).
// The builders stay the one source of what a surface shows: their v0.8 parts are written here in
// the v0.9 shape of the basic catalog, component for component, so both versions show the same
// words, the same controls and the same actions.
//
// What differs, one line each (v0.9 server_to_client.json and catalogs/basic/catalog.json):
// - a component is flat, `{id, component: "Text", text, variant}`, not `{id, component: {Text: {…}}}`;
// - a literal is the value itself (`"Hello"`, `62`, `true`), a binding still `{path}`;
// - children are an array of ids, not `{explicitList}`; Text's `usageHint` is `variant`; a
//   Button's `primary` is `variant: "primary"` and its action `{event: {name, context: {k: v}}}`;
//   a Slider's `minValue`/`maxValue` are `min`/`max`; MultipleChoice is ChoicePicker, its
//   `selections` `value`, one choice `variant: "mutuallyExclusive"`;
// - the root is the component whose id is `root` (createSurface names no root): the surface's root
//   is renamed so, every other id is as in v0.8;
// - the data model is plain JSON (`updateDataModel {path, value}`), not typed entries: the
//   object itself, read back from the v0.8 entries (data-model.ts writes them so that they read
//   back equal).

/** The catalog every surface here is drawn with: v0.9's basic catalog, as @a2ui's renderers name it. */
export const BASIC_CATALOG_V09 = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';
/** The root component's id in v0.9 (the renderer starts the tree there). */
const ROOT = 'root';

type Dynamic = string | number | boolean | { readonly path: string };

/** One component of the v0.9 basic catalog: its id, its type, its properties, flat. */
export interface ComponentV09 {
  readonly id: string;
  readonly component: string;
  readonly [property: string]: unknown;
}

export type A2uiMessageV09 =
  | {
      readonly version: 'v0.9';
      readonly createSurface: { readonly surfaceId: string; readonly catalogId: string };
    }
  | {
      readonly version: 'v0.9';
      readonly updateComponents: { readonly surfaceId: string; readonly components: readonly ComponentV09[] };
    }
  | {
      readonly version: 'v0.9';
      readonly updateDataModel: {
        readonly surfaceId: string;
        readonly path: string;
        readonly value: unknown;
      };
    }
  | { readonly version: 'v0.9'; readonly deleteSurface: { readonly surfaceId: string } };

/**
 * The v0.9 messages that show a surface, in the order a renderer needs: create it (naming the
 * catalog), its components, then its data model.
 */
export function surfaceMessagesV09(parts: SurfaceParts): A2uiMessageV09[] {
  const rename = (id: string) => (id === parts.root ? ROOT : id);
  return [
    { version: 'v0.9', createSurface: { surfaceId: parts.surfaceId, catalogId: BASIC_CATALOG_V09 } },
    {
      version: 'v0.9',
      updateComponents: {
        surfaceId: parts.surfaceId,
        components: parts.components.map((c) => componentV09(c, rename)),
      },
    },
    ...parts.data.map((d) => ({
      version: 'v0.9' as const,
      updateDataModel: { surfaceId: parts.surfaceId, path: d.path, value: dataValue(d.contents) },
    })),
  ];
}

/** The v0.9 message that removes a surface. */
export function deleteSurfaceV09(surfaceId: string): A2uiMessageV09 {
  return { version: 'v0.9', deleteSurface: { surfaceId } };
}

/** A v0.8 component of components.ts in the v0.9 basic catalog's shape. */
function componentV09(c: Component, rename: (id: string) => string): ComponentV09 {
  const [entry] = Object.entries(c.component);
  if (entry === undefined) throw new Error(`component ${c.id} has no type`);
  const [type, p] = entry as [string, Record<string, unknown>];
  const id = rename(c.id);
  const children = () => ((p.children as { explicitList: string[] }).explicitList ?? []).map(rename);
  switch (type) {
    case 'Text':
      return { id, component: 'Text', text: dynamic(p.text), variant: p.usageHint ?? 'body' };
    case 'Column':
      return { id, component: 'Column', children: children() };
    case 'Row':
      return { id, component: 'Row', children: children(), align: p.alignment ?? 'center' };
    case 'List':
      return { id, component: 'List', children: children(), direction: p.direction ?? 'vertical' };
    case 'Card':
      return { id, component: 'Card', child: rename(p.child as string) };
    case 'Icon':
      return { id, component: 'Icon', name: dynamic(p.name) };
    case 'Button': {
      const action = p.action as { name: string; context: { key: string; value: unknown }[] };
      return {
        id,
        component: 'Button',
        child: rename(p.child as string),
        variant: p.primary === true ? 'primary' : 'default',
        action: {
          event: {
            name: action.name,
            context: Object.fromEntries(action.context.map((e) => [e.key, dynamic(e.value)])),
          },
        },
      };
    }
    case 'CheckBox':
      return { id, component: 'CheckBox', label: dynamic(p.label), value: dynamic(p.value) };
    case 'Slider':
      return {
        id,
        component: 'Slider',
        label: dynamic(p.label),
        value: dynamic(p.value),
        min: p.minValue as number,
        max: p.maxValue as number,
      };
    case 'DateTimeInput':
      return {
        id,
        component: 'DateTimeInput',
        value: dynamic(p.value),
        enableDate: p.enableDate === true,
        enableTime: p.enableTime === true,
      };
    case 'MultipleChoice': {
      const options = p.options as { label: unknown; value: string }[];
      return {
        id,
        component: 'ChoicePicker',
        variant: p.maxAllowedSelections === 1 ? 'mutuallyExclusive' : 'multipleSelection',
        options: options.map((o) => ({ label: dynamic(o.label), value: o.value })),
        value: dynamic(p.selections),
      };
    }
    default:
      // components.ts makes no other type; one added there must be written here too (a test fails).
      throw new Error(`no v0.9 form for the v0.8 component ${type}`);
  }
}

/** A v0.8 bound value (`{literalString}`, `{literalNumber}`, `{literalBoolean}`, `{path}`) in v0.9. */
function dynamic(v: unknown): Dynamic {
  const b = v as { literalString?: string; literalNumber?: number; literalBoolean?: boolean; path?: string };
  if (b.path !== undefined) return { path: b.path };
  const literal = b.literalString ?? b.literalNumber ?? b.literalBoolean;
  if (literal === undefined) throw new Error(`not a v0.8 bound value: ${JSON.stringify(v)}`);
  return literal;
}

/**
 * The JSON value that v0.8 data entries put at their path, as the v0.8 renderer reads them
 * (data-model.ts writes them for exactly this reading): the key `.` is the whole value as JSON
 * text; a string that looks like JSON is that JSON; a valueMap an object of its entries.
 */
function dataValue(contents: readonly DataEntry[]): unknown {
  const [first] = contents;
  if (contents.length === 1 && first?.key === '.' && 'valueString' in first)
    return JSON.parse(first.valueString);
  return Object.fromEntries(contents.map((e) => [e.key, entryValue(e)]));
}

function entryValue(e: DataEntry): unknown {
  if ('valueMap' in e) return dataValue(e.valueMap);
  if ('valueNumber' in e) return e.valueNumber;
  if ('valueBoolean' in e) return e.valueBoolean;
  const t = e.valueString.trim();
  const json = (t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'));
  return json ? JSON.parse(e.valueString) : e.valueString;
}
