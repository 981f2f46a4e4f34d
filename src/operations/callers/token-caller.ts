import { z } from 'zod';
import { fail, ok, type Result } from '../../model/errors.ts';
import { childId, grantIdOfChild } from '../child-ids.ts';
import type { Deps } from '../deps.ts';
import { resourceUrl } from '../tokens/resources.ts';
import { type Caller, callerForGrant } from './caller.ts';

// Who calls the MCP surface (WIRE-NOTES §3–§5). Only tokens minted for the MCP resource
// (`${base}/mcp`, RFC 8707) are accepted; owner tokens are refused: MCP clients act for an app
// under the owner's grants, never as the owner.

/** A caller holding one grant. */
export type GrantCaller = Extract<Caller, { kind: 'grant' }>;

/**
 * A grant-bound token as a whole, authenticated: one grant, or a package of several. Surfaces
 * that take package tokens (MCP) resolve it to one `Caller` per grant named by `grant_id`
 * (resolveGrantIds, then callerFor); operations see that per-grant caller, except those the
 * catalog declares `caller: 'token'` (child discovery).
 * A `package` caller (WIRE-NOTES §4) carries the children's ids as the token names them; each
 * child's state is re-read on every call.
 */
export type TokenCaller = (
  | { readonly kind: 'grant'; readonly clientId: string; readonly caller: GrantCaller }
  | {
      readonly kind: 'package';
      readonly clientId: string;
      readonly packageId: string;
      readonly grantIds: readonly string[];
    }
) & {
  /** When the token itself expires (its `exp`): a notice stream ends then (docs/subscriptions.md). */
  readonly tokenExpiresAt: Date;
};

/**
 * `grant_id` as MCP tools take it: one id, or a list of ids (a fan-out). The schema takes any
 * string so that the server, not the client, refuses a malformed id (as a tool error before any
 * read): clients do not reliably validate arguments.
 */
export const GrantIdArg = z.union([z.string().max(300), z.array(z.string().max(300)).max(20)]);
export type GrantIdArg = z.infer<typeof GrantIdArg>;

export function mcpResource(deps: Deps): string {
  return resourceUrl(deps.provider, 'mcp');
}

/**
 * A grant-bound bearer token verified for `resource`: its principal, a grant or a package.
 * Missing, invalid, for another resource, or an owner token: invalid_token (a 401 on the wire).
 * The MCP and A2A surfaces both take grant tokens only: agents act for an app under the owner's
 * grants, never as the owner.
 */
export async function grantTokenPrincipal(
  deps: Deps,
  token: string | undefined,
  resource: string,
  now: Date,
) {
  if (token === undefined || token === '') return fail('invalid_token', 'an access token is required');
  const verified = await deps.tokens.verify(token, now, [resource]);
  if (!verified.ok) return verified;
  const principal = verified.value.principal;
  if (principal.kind === 'subject') {
    return fail(
      'invalid_token',
      "an owner token cannot be used here; connect an app and approve a grant on the owner's consent page",
    );
  }
  return ok({ principal, tokenExpiresAt: new Date(verified.value.expiresAt * 1000) });
}

/**
 * Bearer token → MCP caller; every failure is a 401 on the wire (WIRE-NOTES §5). A package
 * token is active while at least one of its children is.
 */
export async function authenticateMcp(deps: Deps, token: string | undefined): Promise<Result<TokenCaller>> {
  const now = deps.clock();
  const verified = await grantTokenPrincipal(deps, token, mcpResource(deps), now);
  if (!verified.ok) return verified;
  const { principal, tokenExpiresAt } = verified.value;
  if (principal.kind === 'package') {
    for (const id of principal.grantIds) {
      const child = await callerForGrant(deps, id, principal.clientId, now, true);
      if (child.ok) {
        return ok({
          kind: 'package',
          clientId: principal.clientId,
          packageId: principal.packageId,
          grantIds: principal.grantIds,
          tokenExpiresAt,
        });
      }
    }
    return fail('invalid_token', 'no grant of this package is active any more');
  }
  const caller = await callerForGrant(deps, principal.grantId, principal.clientId, now);
  if (!caller.ok) return caller;
  return ok({ kind: 'grant', clientId: principal.clientId, caller: caller.value, tokenExpiresAt });
}

/** The grants one tool call names, and whether it is a fan-out (a list, even of one). */
export interface NamedGrants {
  /** PPX grant ids, in the order named. */
  readonly ids: readonly string[];
  readonly fanOut: boolean;
}

/**
 * Checks `grant_id` before anything is read (read profile §3). With a package token it is
 * required: each value must be well-formed (a child id, `[A-Za-z0-9._~-]+`, or the PPX grant id
 * it stands for: child-ids.ts), name one of the package's children, and appear once. With a
 * single-grant token it is optional and, when given, must name the token's grant. `single`: the
 * tool takes exactly one id (write tools).
 */
export function resolveGrantIds(
  mcp: TokenCaller,
  arg: GrantIdArg | undefined,
  single: boolean,
): Result<NamedGrants> {
  const fanOut = Array.isArray(arg);
  if (fanOut && single) return fail('invalid_request', 'grant_id must be one grant id, not a list');
  if (mcp.kind === 'grant') {
    const own = mcp.caller.grant.grant_id;
    if (arg === undefined) return ok({ ids: [own], fanOut: false });
    const named = Array.isArray(arg) ? arg : [arg];
    if (named.length !== 1 || grantIdOfChild(named[0] as string) !== own) {
      return fail(
        'invalid_request',
        `grant_id must be omitted or name this token's grant, "${childId(own)}"`,
        { grantId: own },
      );
    }
    return ok({ ids: [own], fanOut });
  }
  if (arg === undefined) {
    return fail(
      'invalid_request',
      'grant_id is required with this token: name one of its grants (ppx_list_granted_access lists them)',
    );
  }
  const named = Array.isArray(arg) ? arg : [arg];
  if (named.length === 0) return fail('invalid_request', 'grant_id must name at least one grant');
  const ids: string[] = [];
  for (const value of named) {
    const id = grantIdOfChild(value);
    if (id === undefined) {
      return fail(
        'invalid_request',
        'grant_id is malformed: a grant id is letters, digits and . _ ~ - (see ppx_list_granted_access)',
      );
    }
    if (ids.includes(id)) return fail('invalid_request', 'grant_id names a grant twice');
    if (!mcp.grantIds.includes(id)) {
      return fail(
        'invalid_request',
        'grant_id does not name a grant of this token (see ppx_list_granted_access)',
      );
    }
    ids.push(id);
  }
  return ok({ ids, fanOut });
}

/**
 * The per-grant caller for one named grant, re-read now. For a package child that is no longer
 * active the failure is a token-status code (grant_revoked, grant_expired, invalid_token) with
 * its grant id; the surface answers it as `package_child_inactive`, never as HTTP 401/403.
 */
export async function callerFor(deps: Deps, mcp: TokenCaller, grantId: string): Promise<Result<GrantCaller>> {
  if (mcp.kind === 'grant') return ok(mcp.caller);
  const child = await callerForGrant(deps, grantId, mcp.clientId, deps.clock());
  if (child.ok) return child;
  return fail(child.error.code, `grant ${childId(grantId)} is no longer active`, { grantId });
}

/**
 * The pairwise profile id MCP resources are addressed by (each client sees its own). None under a
 * package token: a resource read cannot name a child, and every read there must.
 */
export function resourceProfileId(deps: Deps, mcp: TokenCaller): string | undefined {
  return mcp.kind === 'grant' ? deps.pairwise.profile(mcp.caller.grant.profile_id, mcp.clientId) : undefined;
}

/**
 * The grant a resource read runs under: the token's own, when `profileId` is the id this client
 * sees. Any other id, another client's id for the same profile included, reads as absent,
 * whether or not it exists.
 */
export function resourceCaller(deps: Deps, mcp: TokenCaller, profileId: string): Result<GrantCaller> {
  if (mcp.kind === 'package') {
    return fail(
      'invalid_request',
      'resources are not served under a token for several grants: use the tools with grant_id',
    );
  }
  if (resourceProfileId(deps, mcp) !== profileId) return fail('not_found', 'there is no such resource');
  return ok(mcp.caller);
}
