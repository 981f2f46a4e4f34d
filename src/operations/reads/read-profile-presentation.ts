import { IdentityMemo, isShared, share } from '../../cache/identity-memo.ts';
import type { GrantCaller } from '../callers/token-caller.ts';
import type { Deps } from '../deps.ts';
import { changeTimes } from './freshness.ts';

// The PDPP MCP read profile's presentation of a PPX result that lists claims (read profile §3,
// WIRE-NOTES §4; its schema: surfaces/mcp/presentation.ts): `claim_instances`, the pairwise
// instance of each claim id the result names, and `freshness`, when the claims of each namespace
// the grant can see last changed (freshness.ts). It runs after the read it presents, under the same
// grant caller, and reads nothing the grant cannot see: its times are of the claims that read
// returned and audited (the read's event names them), coarsened; it records no event of its own,
// as it discloses no claim that event does not list.

interface Presentable {
  readonly claims: readonly { readonly claim_id: string; readonly namespace: string }[];
  readonly proposals?: readonly { readonly claim_id: string }[];
  readonly decisions?: readonly { readonly claim_id: string }[];
}

/** Presented results remembered per shared PPX result: one per client and freshness. */
const MAX_PRESENTED = 64;
const presented = new IdentityMemo<object, object>(MAX_PRESENTED);

/**
 * Adds `claim_instances` and `freshness` to a PPX result that lists claims; other results pass
 * as they are. A shared result gets a shared presentation, the same object for every caller of
 * the same client while the freshness holds, so its JSON is reused too.
 */
export async function presentForReadProfile(
  deps: Deps,
  caller: GrantCaller,
  data: unknown,
): Promise<unknown> {
  if (typeof data !== 'object' || data === null || !Array.isArray((data as { claims?: unknown }).claims)) {
    return data;
  }
  const result = data as Presentable;
  const instanceId = deps.pairwise.profile(caller.grant.profile_id, caller.clientId);
  const streams = [...new Set(result.claims.map((c) => c.namespace))].sort();
  const changed = await changeTimes(deps, caller.grant, streams);
  const freshness = streams.flatMap((stream) => {
    const at = changed.get(stream);
    return at === undefined ? [] : [{ stream, instance_id: instanceId, last_success_at: at }];
  });
  const shared = isShared(data);
  const key = `${instanceId} ${freshness.map((f) => f.last_success_at).join(' ')}`;
  const hit = shared ? presented.get(data, key) : undefined;
  if (hit !== undefined) return hit;
  const ids = new Set(result.claims.map((c) => c.claim_id));
  for (const named of [...(result.proposals ?? []), ...(result.decisions ?? [])]) ids.add(named.claim_id);
  const made = {
    ...data,
    claim_instances: [...ids].map((id) => ({ id, instance_id: instanceId })),
    freshness,
  };
  return shared ? presented.set(data, key, share(made)) : made;
}
