import { z } from 'zod';
import { AccessMode } from '../../model/consent-grant.ts';
import { ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { DateTime, GrantStatus, Operation } from '../../model/vocabulary.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import type { TokenCaller } from '../callers/token-caller.ts';
import { announceIfExpired } from '../changes.ts';
import { childId } from '../child-ids.ts';
import type { Deps } from '../deps.ts';

// Child discovery (PDPP MCP read profile §3, `ppx_list_granted_access`): what the presented
// token covers, one entry per grant it names, read from the store on every call so a revocation
// shows on the very next one. It lists grants and pairwise handles, never records: no claim, no
// value, no internal id, nothing the token does not name.

const GrantedStream = z.strictObject({
  /** A claim namespace (the read profile's stream). */
  namespace: z.string(),
  /** The pairwise handles of the profiles (instances) the grant covers in it. */
  instance_ids: z.array(z.string()),
});

const GrantedAccess = z.strictObject({
  grant_id: z.string(),
  /** The source: this provider. */
  source: z.strictObject({ provider_id: z.string() }),
  purposes: z.array(z.string()),
  /** The operations the grant allows (its processing permissions); nothing else confers one. */
  processing_permissions: z.array(Operation),
  allowed_claim_keys: z.array(z.string()).optional(),
  streams: z.array(GrantedStream),
  access_mode: AccessMode,
  /** Read access now: active, revoked, expired (a consumed single-use grant past its deadline), pending. */
  status: GrantStatus,
  expires_at: DateTime.optional(),
});
type GrantedAccess = z.infer<typeof GrantedAccess>;

export const GrantedAccessList = z.strictObject({ grants: z.array(GrantedAccess) });
export type GrantedAccessList = z.infer<typeof GrantedAccessList>;

/** The grants the token covers, as they stand now. */
export async function listGrantedAccess(deps: Deps, mcp: TokenCaller): Promise<Result<GrantedAccessList>> {
  const ids = mcp.kind === 'grant' ? [mcp.caller.grant.grant_id] : mcp.grantIds;
  const grants: GrantedAccess[] = [];
  for (const id of ids) {
    const grant = await deps.store.getGrant(id);
    // A grant that is gone or belongs to another client is not covered: it is not listed.
    if (!grant || grant.grantee_id !== mcp.clientId) continue;
    await announceIfExpired(deps, grant, deps.clock());
    grants.push(describe(deps, grant, mcp.clientId));
  }
  return ok({ grants });
}

function describe(deps: Deps, grant: GrantRecord, clientId: string): GrantedAccess {
  const instanceId = deps.pairwise.profile(grant.profile_id, clientId);
  return {
    grant_id: childId(grant.grant_id),
    source: { provider_id: deps.provider.providerId },
    purposes: [...grant.purposes],
    processing_permissions: [...grant.allowed_operations],
    ...(grant.allowed_claim_keys ? { allowed_claim_keys: [...grant.allowed_claim_keys] } : {}),
    streams: grant.allowed_namespaces.map((namespace) => ({ namespace, instance_ids: [instanceId] })),
    access_mode: grant.access_mode,
    status: grantStatusAt(grant, deps.clock()),
    ...(grant.expires_at !== undefined ? { expires_at: grant.expires_at } : {}),
  };
}
