import { compatibility } from './compatibility.ts';
import type { DerivedViewKind } from './contract.ts';
import { match } from './match.ts';
import { recommendationBasis } from './recommendation-basis.ts';

// The derived-view kinds this provider computes. Adding a kind is adding a file with the
// DerivedViewKind shape and one entry here; the operation and the HTTP routes follow.

export const DERIVED_VIEW_KINDS: readonly DerivedViewKind[] = [match, compatibility, recommendationBasis];

const byKind = new Map(DERIVED_VIEW_KINDS.map((k) => [k.kind, k]));

export function derivedViewKind(kind: string): DerivedViewKind | undefined {
  return byKind.get(kind);
}

export function derivedViewKindNames(): string[] {
  return DERIVED_VIEW_KINDS.map((k) => k.kind);
}

export type { DerivedViewKind, ViewRequest } from './contract.ts';
