import { z } from 'zod';
import { fail, ok, type Result } from '../model/errors.ts';
import { type Caller, callerForGrant } from './caller.ts';
import type { Deps } from './deps.ts';

// Who calls the MCP surface (WIRE-NOTES §3–§5). Only tokens minted for the MCP resource
// (`${base}/mcp`, RFC 8707) are accepted; owner tokens are refused: MCP clients act for an app
// under the owner's grants, never as the owner.

/** A caller holding one grant. */
export type GrantCaller = Extract<Caller, { kind: 'grant' }>;

/**
 * An authenticated MCP caller. Every tool call resolves it to one `Caller` per grant named by
 * `grant_id` (selectGrant); operations only ever see that per-grant caller.
 *
 * `package` (WIRE-NOTES §4: several grants of one grantee under one token) is the next slice: it
 * will carry the children's ids, and selectGrant will refuse a missing, malformed, repeated or
 * unknown `grant_id` before any read and fan out over a list. Until then a package token is
 * refused at authentication.
 */
export type McpCaller =
  | { readonly kind: 'grant'; readonly clientId: string; readonly caller: GrantCaller }
  | {
      readonly kind: 'package';
      readonly clientId: string;
      readonly packageId: string;
      readonly grantIds: readonly string[];
    };

/** The read profile's child grant id grammar (WIRE-NOTES §4). */
export const GrantIdPattern = /^[A-Za-z0-9._~-]+$/;

/**
 * `grant_id` as MCP tools take it: one id, or a list of ids (fan-out, packages only). The schema
 * takes any id: a single grant's own id (`ppx:grant:…`) is valid; the child grammar
 * (GrantIdPattern) is checked by selectGrant for package tokens, as a tool error before any read.
 */
export const GrantIdArg = z.union([
  z.string().min(1).max(300),
  z.array(z.string().min(1).max(300)).min(1).max(20),
]);
export type GrantIdArg = z.infer<typeof GrantIdArg>;

export function mcpResource(deps: Deps): string {
  return `${deps.provider.baseUrl}/mcp`;
}

/** Bearer token → MCP caller; every failure is a 401 on the wire (WIRE-NOTES §5). */
export async function authenticateMcp(deps: Deps, token: string | undefined): Promise<Result<McpCaller>> {
  if (token === undefined || token === '') return fail('invalid_token', 'an access token is required');
  const now = deps.clock();
  const verified = await deps.tokens.verify(token, now, mcpResource(deps));
  if (!verified.ok) return verified;
  const principal = verified.value.principal;
  switch (principal.kind) {
    case 'subject':
      return fail(
        'invalid_token',
        "an owner token cannot be used here; connect an app and approve a grant on the owner's consent page",
      );
    case 'package':
      return fail('invalid_token', 'grant-package tokens are not served on this endpoint yet');
    case 'grant': {
      const caller = await callerForGrant(deps, principal.grantId, principal.clientId, now);
      if (!caller.ok) return caller;
      return ok({ kind: 'grant', clientId: principal.clientId, caller: caller.value });
    }
  }
}

/**
 * The caller a tool call runs as. With a single-grant token `grant_id` is optional and, when
 * given, must name the token's grant (a single id; a list only fans out over a package).
 */
export function selectGrant(mcp: McpCaller, grantId: GrantIdArg | undefined): Result<Caller> {
  if (mcp.kind === 'package') {
    return fail('invalid_request', 'grant-package tokens are not served on this endpoint yet');
  }
  const own = mcp.caller.grant.grant_id;
  if (grantId === undefined) return ok(mcp.caller);
  const named = Array.isArray(grantId) ? grantId : [grantId];
  if (named.length !== 1 || named[0] !== own) {
    return fail('invalid_request', `grant_id must be omitted or name this token's grant, "${own}"`, {
      grantId: own,
    });
  }
  return ok(mcp.caller);
}
