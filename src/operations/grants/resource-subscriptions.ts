import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantCaller } from '../callers/token-caller.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

// The resources a grant follows under MCP 2025-11-25 (`resources/subscribe`, issue 25 item 2,
// docs/subscriptions.md). That revision subscribes in one request and is told on a stream opened
// by another, possibly on another instance, so what a grant follows is kept in the store
// (store/resource-subscriptions.ts): rows of the grant, not of a session, and no change events
// (following a resource changes nothing of the person's). Which URIs a grant may follow is the
// surface's to say (surfaces/mcp/watched-resources.ts); this keeps the list and its bound.

/** The most resources one grant follows at once (as many as one listen may name). */
const MAX_FOLLOWED_PER_GRANT = 32;

/** Adds `uri` to what the caller's grant follows; following it already is no error. */
export async function followResource(deps: Deps, caller: GrantCaller, uri: string): Promise<Result<true>> {
  const grant = caller.grant;
  const added = await inTransaction(
    deps,
    (tx) =>
      tx.store.addResourceSubscription(grant.grant_id, uri, tx.clock().toISOString(), MAX_FOLLOWED_PER_GRANT),
    { subject: grant.subject_id },
  );
  if (added === 'full') {
    return fail(
      'invalid_request',
      `this grant already follows ${MAX_FOLLOWED_PER_GRANT} resources; unsubscribe from one first`,
    );
  }
  return ok(true);
}

/** Removes `uri` from what the caller's grant follows; not following it is no error. */
export async function unfollowResource(deps: Deps, caller: GrantCaller, uri: string): Promise<Result<true>> {
  const grant = caller.grant;
  await inTransaction(deps, (tx) => tx.store.removeResourceSubscription(grant.grant_id, uri), {
    subject: grant.subject_id,
  });
  return ok(true);
}

/** The URIs the caller's grant follows, in the order it first followed them. */
export function followedResources(deps: Deps, caller: GrantCaller): Promise<readonly string[]> {
  return deps.store.listResourceSubscriptions(caller.grant.grant_id);
}
