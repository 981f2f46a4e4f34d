import { z } from 'zod';
import { IdentityMemo, isShared, share } from '../../cache/identity-memo.ts';
import { DateTime } from '../../model/vocabulary.ts';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { changeTimes } from '../../operations/reads/freshness.ts';

// The MCP presentation of a PPX result that carries claims (PDPP MCP read profile §3, WIRE-NOTES
// §4): reads, and the answers of the write tools. The PPX object stays as the operation returned
// it, claims untouched (the official claim schema allows no extra member); two members are added
// beside it in `structuredContent.data`:
//
// - `claim_instances`: one `{id, instance_id}` per claim id in the result: the entries of
//   `claims`, in their order, then any other claim id a write result names (proposals,
//   decisions). `instance_id` is the pairwise handle of the profile (instance) the claim is in;
// - `freshness`: one `{stream, instance_id, last_success_at}` per namespace of those claims:
//   when the claims of that namespace the grant can see last changed (operations/reads/freshness.ts),
//   truncated to the granularity declared in the protected resource metadata. A change to a claim
//   hidden from the grant never moves a time the grantee sees.

const ClaimInstance = z.strictObject({ id: z.string(), instance_id: z.string() });
const Freshness = z.strictObject({
  stream: z.string(),
  instance_id: z.string(),
  last_success_at: DateTime,
});

const PRESENTATION = {
  claim_instances: z.array(ClaimInstance).optional(),
  freshness: z.array(Freshness).optional(),
};

/** The output schema of `data` for a tool: its PPX object, plus the presentation members when it carries claims. */
export function presentationSchema(output: z.ZodType): z.ZodType {
  if (output instanceof z.ZodObject && 'claims' in output.shape) return output.extend(PRESENTATION);
  return output;
}

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
export async function presentResult(deps: Deps, caller: GrantCaller, data: unknown): Promise<unknown> {
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
