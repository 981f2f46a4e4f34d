import { fail, type Result } from '../../model/errors.ts';
import type { Deps } from '../deps.ts';
import { resourceUrl } from '../tokens/resources.ts';
import { callerForGrant } from './caller.ts';
import { type GrantCaller, grantTokenPrincipal } from './token-caller.ts';

// Who calls the A2A preference agent (WIRE-NOTES §6, bindings/a2a.md "Authentication"): every
// request bears a token bound to one consent grant, minted for this surface's own resource
// (`${base}/a2a`, RFC 8707). An owner token is refused (an agent acts for an app under the
// person's grant, never as the person), and so is a grant package's: a remote agent names no
// grant in its messages, so the token must say which one it acts under.

function a2aResource(deps: Deps): string {
  return resourceUrl(deps.provider, 'a2a');
}

/** Bearer token → the grant it acts under; every failure is a 401 on the wire. */
export async function authenticateA2a(deps: Deps, token: string | undefined): Promise<Result<GrantCaller>> {
  const now = deps.clock();
  const verified = await grantTokenPrincipal(deps, token, a2aResource(deps), now);
  if (!verified.ok) return verified;
  const { principal } = verified.value;
  if (principal.kind === 'package') {
    return fail(
      'invalid_token',
      'a grant package token cannot be used here: use a token for one of its grants',
    );
  }
  return callerForGrant(deps, principal.grantId, principal.clientId, now);
}
