// The A2UI v0.8 server-to-client messages (WIRE-NOTES §1: v0.8 names, not the v0.9 ones that
// bindings/a2ui.md mixes in), as plain JSON. Typed here rather than with @a2ui/web_core's types:
// that package is a development dependency (its schemas are the tests' oracle), and whoever sends
// these messages (the web app, the A2A surface) needs only JSON.

/** A value a component shows: a literal or a JSON Pointer into the surface's data model. */
export type BoundString = { readonly literalString: string } | { readonly path: string };
export type BoundNumber = { readonly literalNumber: number } | { readonly path: string };
export type BoundBoolean = { readonly literalBoolean: boolean } | { readonly path: string };

/** One entry of a Button action's context; the page resolves `path` values itself (PITFALLS). */
export interface ActionContextEntry {
  readonly key: string;
  readonly value:
    | { readonly literalString: string }
    | { readonly literalNumber: number }
    | { readonly literalBoolean: boolean }
    | { readonly path: string };
}

export interface Action {
  readonly name: string;
  readonly context: readonly ActionContextEntry[];
}

/** One component of the standard v0.8 catalog: exactly one key, the component's type. */
export interface Component {
  readonly id: string;
  readonly component: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** A data entry of dataModelUpdate: a key and exactly one typed value. */
export type DataEntry =
  | { readonly key: string; readonly valueString: string }
  | { readonly key: string; readonly valueNumber: number }
  | { readonly key: string; readonly valueBoolean: boolean }
  | { readonly key: string; readonly valueMap: readonly DataEntry[] };

export type A2uiMessage =
  | { readonly surfaceUpdate: { readonly surfaceId: string; readonly components: readonly Component[] } }
  | {
      readonly dataModelUpdate: {
        readonly surfaceId: string;
        readonly path: string;
        readonly contents: readonly DataEntry[];
      };
    }
  | { readonly beginRendering: { readonly surfaceId: string; readonly root: string } }
  | { readonly deleteSurface: { readonly surfaceId: string } };

/**
 * What each component builder returns: one surface's components, its root, and the data model
 * entries to set (each at its path). Every id any component refers to is in `components`, so
 * the surfaceUpdate made from it is complete on its own (the renderer requires it).
 */
export interface SurfaceParts {
  readonly surfaceId: string;
  readonly root: string;
  readonly components: readonly Component[];
  readonly data: readonly { readonly path: string; readonly contents: readonly DataEntry[] }[];
}

/**
 * The messages that show a surface, in the order a renderer needs: the components, the data
 * model, then beginRendering (which builds the tree from both).
 */
export function surfaceMessages(parts: SurfaceParts): A2uiMessage[] {
  return [
    { surfaceUpdate: { surfaceId: parts.surfaceId, components: parts.components } },
    ...parts.data.map((d) => ({
      dataModelUpdate: { surfaceId: parts.surfaceId, path: d.path, contents: d.contents },
    })),
    { beginRendering: { surfaceId: parts.surfaceId, root: parts.root } },
  ];
}

/** The message that removes a surface (a revoked grant's card, a decided request's form). */
export function deleteSurface(surfaceId: string): A2uiMessage {
  return { deleteSurface: { surfaceId } };
}
