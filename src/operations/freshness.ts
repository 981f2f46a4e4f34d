import type { Deps } from './deps.ts';

// How coarsely a grantee is told when claims changed: MCP `freshness.last_success_at` (PDPP MCP
// read profile §3, WIRE-NOTES §4) and the `updated_at` of a grantee's export. Times are truncated
// to the hour, so a grantee cannot time individual edits; the MCP protected resource metadata
// declares it (`pdpp_freshness_granularity`).

export const FRESHNESS_GRANULARITY = 'PT1H';
const FRESHNESS_GRANULARITY_MS = 3_600_000;

/** Truncates an RFC 3339 time to the declared granularity. */
function coarsen(at: string): string {
  const t = Date.parse(at);
  return new Date(Math.floor(t / FRESHNESS_GRANULARITY_MS) * FRESHNESS_GRANULARITY_MS).toISOString();
}

/**
 * When the claims of each of `namespaces` of a profile last changed, as a grantee may be told:
 * to the granularity, and only for the namespaces asked about (its grant's, or those of the
 * claims it was shown), so a change elsewhere never shows. A namespace that never held a claim
 * is absent.
 */
export async function changeTimes(
  deps: Deps,
  profileId: string,
  namespaces: Iterable<string>,
): Promise<Map<string, string>> {
  const wanted = new Set(namespaces);
  const out = new Map<string, string>();
  for (const c of await deps.store.listNamespaceChanges(profileId)) {
    if (wanted.has(c.namespace)) out.set(c.namespace, coarsen(c.changed_at));
  }
  return out;
}
