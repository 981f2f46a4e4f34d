import { fail, type Result } from '../model/errors.ts';
import { callerForGrant } from './caller.ts';
import type { Deps } from './deps.ts';
import type { GrantCaller } from './mcp-caller.ts';
import { resourceUrl } from './resources.ts';

// Who calls the A2A preference agent (WIRE-NOTES §6, bindings/a2a.md "Authentication"): every
// request bears a token bound to one consent grant, minted for this surface's own resource
// (`${base}/a2a`, RFC 8707). An owner token is refused (an agent acts for an app under the
// person's grant, never as the person), and so is a grant package's: a remote agent names no
// grant in its messages, so the token must say which one it acts under.

export function a2aResource(deps: Deps): string {
  return resourceUrl(deps.provider, 'a2a');
}

/** Bearer token → the grant it acts under; every failure is a 401 on the wire. */
export async function authenticateA2a(deps: Deps, token: string | undefined): Promise<Result<GrantCaller>> {
  if (token === undefined || token === '') return fail('invalid_token', 'an access token is required');
  const now = deps.clock();
  const verified = await deps.tokens.verify(token, now, [a2aResource(deps)]);
  if (!verified.ok) return verified;
  const principal = verified.value.principal;
  switch (principal.kind) {
    case 'subject':
      return fail(
        'invalid_token',
        "an owner token cannot be used here; connect an app and approve a grant on the owner's consent page",
      );
    case 'package':
      return fail(
        'invalid_token',
        'a grant package token cannot be used here: use a token for one of its grants',
      );
    case 'grant':
      return callerForGrant(deps, principal.grantId, principal.clientId, now);
  }
}
