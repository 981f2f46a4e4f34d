import { IdentityMemo, share } from '../../cache/identity-memo.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantScope, type Scope } from '../../policy/scope.ts';
import { isClaimVisible, visibilityKey } from '../../policy/visibility.ts';
import type { ClaimChange } from '../../store/store.ts';
import type { Deps } from '../deps.ts';

// What a grantee is told about when its data changed: MCP `freshness.last_success_at` (PDPP MCP
// read profile §3, WIRE-NOTES §4) and the `updated_at` of a grantee's export. "When the data this
// grant can read last changed": computed from the claims the grant can see, never from a namespace
// as a whole, so a change to a claim hidden from the grant (another key of a granted namespace, a
// claim of another domain) moves nothing it is told (issue 10, leak 2). The store keeps the time per
// claim shape (migration 0010), a deleted claim's included, and visibility is decided by the same
// function as for the claims themselves (policy/visibility.ts#isClaimVisible). Times are truncated to
// the hour, so a grantee cannot time individual edits; the MCP protected resource metadata
// declares it (`pdpp_freshness_granularity`). Mapped cross-domain traits (docs/cross-domain.md) are
// derived, not stored, and carry no time of their own.

export const FRESHNESS_GRANULARITY = 'PT1H';
const FRESHNESS_GRANULARITY_MS = 3_600_000;

/** Truncates an RFC 3339 time to the declared granularity. */
function coarsen(at: string): string {
  const t = Date.parse(at);
  return new Date(Math.floor(t / FRESHNESS_GRANULARITY_MS) * FRESHNESS_GRANULARITY_MS).toISOString();
}

/** Distinct scopes remembered per change list (the store hands out one list per profile version). */
const MAX_SCOPES = 32;
const timesByScope = new IdentityMemo<readonly ClaimChange[], ReadonlyMap<string, string>>(MAX_SCOPES);

/** Per namespace, the latest (coarsened) change among the shapes the scope can see. */
function visibleChangeTimes(scope: Scope, changes: readonly ClaimChange[]): ReadonlyMap<string, string> {
  const latest = new Map<string, string>();
  for (const change of changes) {
    if (!isClaimVisible(scope, change)) continue;
    const at = coarsen(change.changed_at);
    const known = latest.get(change.namespace);
    if (known === undefined || at > known) latest.set(change.namespace, at);
  }
  return share(latest);
}

/**
 * When the claims `grant` can see in each of `namespaces` last changed (created, updated or
 * deleted), as its grantee may be told: to the granularity, for the namespaces asked about (its
 * grant's, or those of the claims it was shown). A namespace where the grant never saw a claim is
 * absent. Reused while the profile's version and the grant's scope hold (docs/benchmarks.md,
 * "Reuse between requests").
 */
export async function changeTimes(
  deps: Deps,
  grant: GrantRecord,
  namespaces: Iterable<string>,
): Promise<Map<string, string>> {
  const changes = await deps.store.listClaimChanges(grant.profile_id);
  const scope = grantScope(grant);
  const key = visibilityKey(scope);
  const times =
    timesByScope.get(changes, key) ?? timesByScope.set(changes, key, visibleChangeTimes(scope, changes));
  const out = new Map<string, string>();
  for (const namespace of namespaces) {
    const at = times.get(namespace);
    if (at !== undefined) out.set(namespace, at);
  }
  return out;
}
