import { z } from 'zod';
import { DateTime } from '../../model/vocabulary.ts';
import type { Deps } from '../../operations/deps.ts';
import type { GrantCaller } from '../../operations/mcp-caller.ts';
import { FRESHNESS_GRANULARITY_MS } from '../../operations/oauth/metadata.ts';
import { IdentityMemo, isShared, share } from '../../resolve/identity-memo.ts';

// The MCP presentation of a PPX read result (PDPP MCP read profile §3, WIRE-NOTES §4). The
// PPX object stays as the operation returned it, claims untouched (the official claim schema
// allows no extra member); two members are added beside it in `structuredContent.data`:
//
// - `claim_instances`: one `{id, instance_id}` per entry of `claims`, in the same order: the
//   claim's id beside the pairwise handle of the profile (instance) it belongs to;
// - `freshness`: one `{stream, instance_id, last_success_at}` per namespace of those claims,
//   `last_success_at` being the time of this read, truncated to the granularity declared in the
//   protected resource metadata. The provider is the system of record, so every read collects
//   the current state. The profile's own last change would tell a grantee, to the hour, that
//   something changed, including outside its grant, which must look like nothing at all.

export const ClaimInstance = z.strictObject({ id: z.string(), instance_id: z.string() });
export const Freshness = z.strictObject({
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

/** Truncates a time to the declared granularity. */
export function coarsen(at: Date): string {
  const t = at.getTime();
  return new Date(Math.floor(t / FRESHNESS_GRANULARITY_MS) * FRESHNESS_GRANULARITY_MS).toISOString();
}

interface ClaimLike {
  readonly claim_id: string;
  readonly namespace: string;
}

/** Presented results remembered per shared PPX result: one per client and freshness. */
const MAX_PRESENTED = 64;
const presented = new IdentityMemo<object, object>(MAX_PRESENTED);

/**
 * Adds `claim_instances` and `freshness` to a PPX result that lists claims; other results pass
 * as they are. A shared result gets a shared presentation, the same object for every
 * caller of the same client while the profile's freshness holds, so its JSON is reused too.
 */
export function presentRead(deps: Deps, caller: GrantCaller, data: unknown): unknown {
  if (typeof data !== 'object' || data === null) return data;
  const claims = (data as { claims?: unknown }).claims;
  if (!Array.isArray(claims)) return data;
  const instanceId = deps.pairwise.profile(caller.grant.profile_id, caller.clientId);
  const lastSuccessAt = coarsen(deps.clock());
  const shared = isShared(data);
  const key = `${instanceId} ${lastSuccessAt}`;
  const hit = shared ? presented.get(data, key) : undefined;
  if (hit !== undefined) return hit;
  const list = claims as ClaimLike[];
  const streams = [...new Set(list.map((c) => c.namespace))].sort();
  const made = {
    ...data,
    claim_instances: list.map((c) => ({ id: c.claim_id, instance_id: instanceId })),
    freshness: streams.map((stream) => ({ stream, instance_id: instanceId, last_success_at: lastSuccessAt })),
  };
  return shared ? presented.set(data, key, share(made)) : made;
}
