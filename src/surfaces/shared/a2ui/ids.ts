// Surface and component ids. Every id starts with `ppx-`: the v0.8 renderer replaces any string
// property equal to a component id with that component (PITFALLS), and no word a person reads
// starts so. Each surface shows one PPX object and is named after it, so one page may show many
// (one card per grant) and remove one with deleteSurface; component ids carry the surface id, so
// they stay unique even if two surfaces' components are ever merged.

export type SurfaceKind = 'claim' | 'proposal' | 'suggestions' | 'grant' | 'diff' | 'consent';

/**
 * The part of a PPX id that tells objects apart (`ppx:claim:demo-x` -> `demo-x`), written with
 * letters, digits and `-` only: any other character becomes `_` and its code in hex, so two ids
 * never give the same part, and the result is safe in a data-model path (the renderer splits
 * paths on `.` and `/`).
 */
export function localPart(id: string): string {
  return id
    .replace(/^ppx:[a-z_]+:/, '')
    .replace(/[^A-Za-z0-9-]/g, (c) => `_${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export function surfaceIdFor(kind: SurfaceKind, objectId: string): string {
  return `ppx-${kind}-${localPart(objectId)}`;
}

/** Component ids within a surface: `idOf('title')` -> `ppx-claim-demo-x-title`. */
export function idsFor(surfaceId: string): (part: string) => string {
  return (part) => `${surfaceId}-${part}`;
}
