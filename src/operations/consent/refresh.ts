import type { z } from 'zod';
import { sha256 } from '../../auth/secrets.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import { recordAudit } from '../audit.ts';
import { endFamily } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { issueGrantToken, issuePackageToken } from '../issue-tokens.ts';
import { inTransaction } from '../transaction.ts';
import { revokeGrantEverywhere } from './revocation.ts';
import {
  accessTtl,
  clientAuthenticated,
  invalidGrant,
  latestExpiry,
  newRefreshToken,
  type RefreshInput,
  type TokenResponse,
} from './tokens.ts';

/**
 * Rotates a refresh token (WIRE-NOTES §2.4), for a family over one grant or a grant package.
 * Presenting a token that was already rotated is treated as theft: the whole family dies and its
 * grants are revoked. A refresh once every grant of the family is revoked is 410 Gone. In a
 * package, withdrawing one child leaves the others: the family lives while one child is active,
 * and its tokens keep naming every child so that an ended one is reported, not forgotten.
 * Of two concurrent refreshes of one token exactly one wins (compare-and-set); one that arrives
 * after the other rotated the token cannot be told from a thief's replay (RFC 9700 §4.14.2).
 */
export async function refreshGrantTokens(
  deps: Deps,
  input: z.infer<typeof RefreshInput>,
): Promise<Result<TokenResponse>> {
  const now = deps.clock();
  const hash = sha256(input.refresh_token);
  const token = await deps.store.getRefreshToken(hash);
  if (!token) return invalidGrant();
  const family = await deps.store.getTokenFamily(token.family_id);
  if (!family || family.client_id !== input.client_id) return invalidGrant();
  const client = await deps.store.getClient(input.client_id);
  if (!client || !clientAuthenticated(client, input.client_secret)) return invalidGrant();
  const grants = (await Promise.all(family.grant_ids.map((id) => deps.store.getGrant(id)))).filter(
    (g): g is GrantRecord => g !== undefined,
  );
  const first = grants[0];
  if (!first) return invalidGrant();
  const statuses = grants.map((g) => grantStatusAt(g, now));

  if (statuses.every((s) => s === 'revoked')) {
    return fail('grant_gone', 'the grant behind this refresh token was revoked; ask the subject again', {
      grantId: first.grant_id,
    });
  }
  if (token.status === 'rotated') {
    // The family, every grant it covers and the audit event end in one commit.
    await inTransaction(deps, async (tx) => {
      await endFamily(tx, family.family_id, now.toISOString());
      for (const g of grants) await revokeGrantEverywhere(tx, g.grant_id, now);
      await recordAudit(
        tx,
        { kind: 'grantee', id: family.client_id },
        first.subject_id,
        {
          action: 'refresh_reuse',
          grantId: first.grant_id,
          outcome: 'denied',
          detail: `a rotated refresh token was presented again; the token family and its ${grants.length} grant(s) were revoked`,
        },
        now,
      );
    });
    return invalidGrant();
  }
  if (family.status !== 'active' || Date.parse(token.expires_at) <= now.getTime()) return invalidGrant();
  const active = grants.filter((_, i) => statuses[i] === 'active');
  if (active.length === 0) return invalidGrant();

  const endsAt = latestExpiry(active);
  const next = newRefreshToken(family.family_id, endsAt, now);
  // The rotation and its audit event commit together: one commit per refresh.
  const rotated = await inTransaction(deps, async (tx) => {
    if (!(await tx.store.rotateRefreshToken(hash, next.record))) return false;
    await recordAudit(
      tx,
      { kind: 'grantee', id: family.client_id },
      first.subject_id,
      { action: 'token_refreshed', grantId: first.grant_id },
      now,
    );
    return true;
  });
  if (!rotated) return invalidGrant();
  // A refreshed token keeps the audience the family was issued for.
  const ttl = accessTtl(deps, endsAt, now);
  const access =
    family.package_id !== undefined
      ? await issuePackageToken(
          deps,
          { packageId: family.package_id, grantIds: family.grant_ids, clientId: family.client_id },
          ttl,
          family.resource,
        )
      : await issueGrantToken(deps, first, ttl, family.resource);
  const covers =
    family.package_id !== undefined ? { grant_ids: family.grant_ids } : { grant_id: first.grant_id };
  return ok({ ...access, ...covers, refresh_token: next.token });
}
