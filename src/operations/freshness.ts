// How coarsely a grantee is told when claims changed: MCP `freshness.last_success_at` (PDPP MCP
// read profile §3, WIRE-NOTES §4) and the `updated_at` of a grantee's export. Times are truncated
// to the hour, so a grantee cannot time individual edits; the MCP protected resource metadata
// declares it (`pdpp_freshness_granularity`).

export const FRESHNESS_GRANULARITY = 'PT1H';
export const FRESHNESS_GRANULARITY_MS = 3_600_000;

/** Truncates an RFC 3339 time to the declared granularity. */
export function coarsen(at: string): string {
  const t = Date.parse(at);
  return new Date(Math.floor(t / FRESHNESS_GRANULARITY_MS) * FRESHNESS_GRANULARITY_MS).toISOString();
}
