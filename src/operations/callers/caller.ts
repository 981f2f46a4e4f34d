import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import { announceIfExpired } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { resourceUrl } from '../tokens/resources.ts';
import { auditRefusedCall } from './refused-call-audit.ts';

/** Who is calling, after authentication: the profile owner, or a grantee holding one grant. */
export type Caller =
  | {
      readonly kind: 'subject';
      readonly subjectId: string;
      /**
       * The hash of the browser session the person is calling through, when they are (the web
       * pages, the web app): what a fresh sign-in is recorded against (docs/passkeys.md). A
       * subject token has none.
       */
      readonly session?: string;
    }
  | { readonly kind: 'grant'; readonly clientId: string; readonly grant: GrantRecord };

/**
 * Turns a bearer token into a caller. A grant token is checked against the grant's state as
 * stored right now, so a revoked or expired grant fails on the very next request
 * (SPEC §6.2 rules 4 and 7; WIRE-NOTES §2.5).
 */
export async function authenticate(deps: Deps, token: string | undefined): Promise<Result<Caller>> {
  if (token === undefined || token === '') return fail('invalid_token', 'an access token is required');
  const now = deps.clock();
  const verified = await deps.tokens.verify(token, now, [resourceUrl(deps.provider, 'api')]);
  if (!verified.ok) return verified;
  const principal = verified.value.principal;
  if (principal.kind === 'subject') return ok({ kind: 'subject', subjectId: principal.subjectId });
  // A package token covers several grants; each use must name one (the MCP surface's grant_id),
  // so the PPX endpoints, which take none, refuse it (PDPP read profile §2).
  if (principal.kind === 'package') {
    return fail(
      'invalid_token',
      'a grant-package token names several grants; use it where each call names its grant_id',
    );
  }

  return callerForGrant(deps, principal.grantId, principal.clientId, now);
}

/**
 * The caller behind one grant named by a token, checked against the grant's state as stored
 * now. Shared by every surface that accepts grant-bound tokens (HTTP, MCP). A call refused
 * because the grant was revoked or expired is logged for the grant's person (refused-call-audit.ts),
 * unless `probe`: only looking for a live grant among several (a package token), not refusing.
 */
export async function callerForGrant(
  deps: Deps,
  grantId: string,
  clientId: string,
  now: Date,
  probe = false,
): Promise<Result<Extract<Caller, { kind: 'grant' }>>> {
  const principal = { grantId, clientId };
  const grant = await deps.store.getGrant(principal.grantId);
  // A token for a grant that does not exist, or belongs to another client, is simply invalid.
  if (!grant || grant.grantee_id !== principal.clientId) {
    return fail('invalid_token', 'the access token does not match a grant of this provider');
  }
  switch (grantStatusAt(grant, now)) {
    case 'revoked':
      if (!probe) await auditRefusedCall(deps, grant, 'grant_revoked', now);
      return fail('grant_revoked', 'the grant behind this token was revoked by the subject', {
        grantId: grant.grant_id,
      });
    case 'expired':
      // Told once (the first request to find it so); later requests skip the write.
      await announceIfExpired(deps, grant, now);
      if (!probe) await auditRefusedCall(deps, grant, 'grant_expired', now);
      return fail('grant_expired', `the grant behind this token expired at ${grant.expires_at}`, {
        grantId: grant.grant_id,
      });
    case 'pending':
      return fail('invalid_token', 'the grant behind this token has not been approved', {
        grantId: grant.grant_id,
      });
    case 'active':
      return ok({ kind: 'grant', clientId: principal.clientId, grant });
  }
}

/** The id a caller sees for the profile's subject: pairwise for a grantee (never the internal id). */
export function subjectIdFor(deps: Deps, caller: Caller, subjectId: string): string {
  return caller.kind === 'subject' ? subjectId : deps.pairwise.subject(subjectId, caller.clientId);
}

export function actorOf(caller: Caller): { kind: 'subject' | 'grantee'; id: string } {
  return caller.kind === 'subject'
    ? { kind: 'subject', id: caller.subjectId }
    : { kind: 'grantee', id: caller.clientId };
}
