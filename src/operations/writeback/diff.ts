import type { Claim } from '../../model/claim.ts';
import type { ClaimHistoryInput } from '../../model/claim-history.ts';

/** One claim's change between two instants: `before` null when added, `after` null when removed. */
export interface ClaimDiff {
  readonly claim_id: string;
  readonly before: Claim | null;
  readonly after: Claim | null;
}

export interface ProfileDiff {
  readonly added: ClaimDiff[];
  readonly changed: ClaimDiff[];
  readonly removed: ClaimDiff[];
}

/**
 * The claims of a profile at an instant, replayed from its history (entries in append order):
 * each claim as of its last entry at or before `atMs`; a deleted claim is absent. Pure.
 */
export function stateAt(entries: readonly ClaimHistoryInput[], atMs: number): Map<string, Claim> {
  const state = new Map<string, Claim>();
  for (const e of entries) {
    if (Date.parse(e.at) > atMs) continue;
    if (e.claim === null) state.delete(e.claim_id);
    else state.set(e.claim_id, e.claim);
  }
  return state;
}

/**
 * What changed between two instants, each list ordered by claim_id. Pure. Every change in the span
 * counts, not only the net one (issue 26, item 3: a profile made that same day showed "19 added, 0
 * changed, 0 removed" right after a change was accepted and a claim removed): a claim added in the
 * span and changed after is `changed` (before: as it was added); a claim that ends the span absent
 * is `removed` (before: as it last was), even when it was added in the span too.
 */
export function profileDiff(
  entries: readonly ClaimHistoryInput[],
  fromMs: number,
  toMs: number,
): ProfileDiff {
  const before = stateAt(entries, fromMs);
  const after = stateAt(entries, toMs);
  // Each claim's versions written within the span (after `from`, up to `to`), in order.
  const during = new Map<string, (Claim | null)[]>();
  for (const e of entries) {
    const at = Date.parse(e.at);
    if (at <= fromMs || at > toMs) continue;
    const versions = during.get(e.claim_id) ?? [];
    versions.push(e.claim);
    during.set(e.claim_id, versions);
  }
  const ids = [...new Set([...before.keys(), ...after.keys(), ...during.keys()])].sort();
  const diff: ProfileDiff = { added: [], changed: [], removed: [] };
  for (const id of ids) {
    const b = before.get(id) ?? null;
    const a = after.get(id) ?? null;
    const written = (during.get(id) ?? []).filter((c): c is Claim => c !== null);
    if (a === null) {
      const last = b ?? written.at(-1) ?? null;
      if (last !== null) diff.removed.push({ claim_id: id, before: last, after: null });
    } else if (b !== null) {
      if (!sameJson(a, b)) diff.changed.push({ claim_id: id, before: b, after: a });
    } else {
      const first = written[0] ?? a;
      if (sameJson(first, a)) diff.added.push({ claim_id: id, before: null, after: a });
      else diff.changed.push({ claim_id: id, before: first, after: a });
    }
  }
  return diff;
}

/** Structural equality of two JSON values, ignoring key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && sameJson(ra[k], rb[k]));
}
