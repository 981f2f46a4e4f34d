import type { z } from 'zod';
import { chainMacValid, chainToken, parseChainToken } from '../../auth/refresh-chain.ts';
import { sha256 } from '../../auth/secrets.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { RefreshChainRecord, RefreshTokenRecord, TokenFamilyRecord } from '../../model/token-family.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import { recordAudit } from '../audit/audit-log.ts';
import { endFamily } from '../changes.ts';
import type { Deps, TxDeps } from '../deps.ts';
import { bindingFor } from '../tokens/dpop-proof.ts';
import { issueGrantToken, issuePackageToken } from '../tokens/issue-tokens.ts';
import { inTransaction } from '../transaction.ts';
import { revokeGrantEverywhere } from './revocation.ts';
import {
  accessTtl,
  clientAuthenticated,
  invalidGrant,
  latestExpiry,
  newRefreshChain,
  type RefreshInput,
  refreshExpiry,
  type TokenResponse,
} from './tokens.ts';

/**
 * Rotates a refresh token (WIRE-NOTES §2.4), for a family over one grant or a grant package.
 * Presenting a spent token (one already rotated) is treated as theft (RFC 9700 §4.14.2): the
 * whole family dies and its grants are revoked, deterministically: whether the token was spent
 * long ago or a moment ago by a concurrent refresh on this or another instance. Of concurrent
 * refreshes of one token, exactly one wins the compare-and-set; every other one then finds the
 * token spent and ends the family, so the winner's new tokens die with it (a client must refresh
 * one at a time; the MCP SDK does). A spent token is always `invalid_grant`; the current token of
 * a family whose grants were all revoked is 410 Gone, saying who ended the access. In a package,
 * withdrawing one child leaves the others: the family lives while one child is active, and its
 * tokens keep naming every child so that an ended one is reported, not forgotten.
 */
export async function refreshGrantTokens(
  deps: Deps,
  input: z.infer<typeof RefreshInput>,
  read?: PresentedToken,
  /** The DPoP key the client proved with this request (RFC 9449 §5), if it sent a proof. */
  proof?: { readonly jkt: string },
): Promise<Result<TokenResponse>> {
  const rotated = await rotateRefreshToken(deps, input, read, proof);
  return rotated.ok ? ok(rotated.value.tokens) : rotated;
}

/**
 * refreshGrantTokens, also giving the grants it read (before the rotation) and found active, so
 * that the OAuth token endpoint can describe them without reading them again.
 */
export async function rotateRefreshToken(
  deps: Deps,
  input: z.infer<typeof RefreshInput>,
  read?: PresentedToken,
  proof?: { readonly jkt: string },
): Promise<Result<{ tokens: TokenResponse; grants: readonly GrantRecord[] }>> {
  const now = deps.clock();
  const presented = read ?? (await readPresented(deps, input.refresh_token));
  if (!presented) return invalidGrant();
  const { token, family } = presented;
  // Whether the token was spent since it was read (by a concurrent refresh, or the family's end).
  const spentSince = async () => (await readPresented(deps, input.refresh_token))?.token.status === 'rotated';
  if (family.client_id !== input.client_id) return invalidGrant();
  // The OAuth token endpoint authenticated the client already (it hands it in `read`).
  const client = presented.client ?? (await deps.store.getClient(input.client_id));
  if (!client || client.client_id !== input.client_id) return invalidGrant();
  if (presented.client === undefined && !clientAuthenticated(client, input.client_secret))
    return invalidGrant();
  // RFC 9449 §5.2: a client registered with dpop_bound_access_tokens is never given a bearer token.
  const binding = bindingFor(client, proof);
  if (!binding.ok) return binding;
  const grants = (await Promise.all(family.grant_ids.map((id) => deps.store.getGrant(id)))).filter(
    (g): g is GrantRecord => g !== undefined,
  );
  const first = grants[0];
  if (!first) return invalidGrant();

  if (token.status === 'rotated') return endForReuse(deps, family, grants, now);
  const ended = endedAccess(family, grants, now);
  if (ended !== undefined) {
    // The token was read before the grants: when another presentation of it ended the family in
    // between, this one is a reuse too, and is told so (400), not that the access is gone (410).
    if (await spentSince()) return reuseRefused();
    return ended;
  }
  if (Date.parse(token.expires_at) <= now.getTime()) return invalidGrant();
  // RFC 9449 §5: a public client's refresh token works only with a proof by the key it is bound
  // to; refused before the rotation, so a stolen token without the key spends nothing.
  if (family.dpop_jkt !== undefined && proof?.jkt !== family.dpop_jkt) {
    return fail(
      'invalid_dpop_proof',
      proof === undefined
        ? 'this refresh token is bound to a DPoP key: send a DPoP proof made with it'
        : 'the DPoP proof is made with another key than the one this refresh token is bound to',
    );
  }
  const active = grants.filter((g) => grantStatusAt(g, now) === 'active');

  const endsAt = latestExpiry(active);
  const next = nextRefreshToken(presented, endsAt, now);
  // The rotation and its audit event commit together: one commit per refresh, serialized only
  // with the family's other rotations (store.ts#TransactionScope). Losing the compare-and-set to
  // a token spent meanwhile is a reuse like any other: the family then ends in a transaction of
  // the subject's, as when the spent token is seen above (the failed compare-and-set wrote nothing).
  const rotation = await inTransaction(
    deps,
    async (tx) => {
      if (!(await next.rotate(tx))) return 'lost' as const;
      await recordAudit(
        tx,
        { kind: 'grantee', id: family.client_id },
        first.subject_id,
        { action: 'token_refreshed', grantId: first.grant_id },
        now,
      );
      return 'rotated' as const;
    },
    { family: family.family_id },
  );
  if (rotation === 'lost') {
    if (!(await spentSince())) return invalidGrant();
    return endForReuse(deps, family, grants, now);
  }
  // A refreshed token keeps the audience the family was issued for.
  const ttl = accessTtl(deps, endsAt, now);
  const access =
    family.package_id !== undefined
      ? await issuePackageToken(
          deps,
          { packageId: family.package_id, grantIds: family.grant_ids, clientId: family.client_id },
          ttl,
          family.resource,
          proof?.jkt,
        )
      : await issueGrantToken(deps, first, ttl, family.resource, proof?.jkt);
  const covers =
    family.package_id !== undefined ? { grant_ids: family.grant_ids } : { grant_id: first.grant_id };
  return ok({ tokens: { ...access, ...covers, refresh_token: next.token }, grants });
}

/** A presented refresh token and its family, as read before the rotation. */
export interface PresentedToken {
  /** Whether it is current or spent, and the times of the family's current token. */
  readonly token: Pick<RefreshTokenRecord, 'family_id' | 'status' | 'issued_at' | 'expires_at'>;
  readonly family: TokenFamilyRecord;
  /** The client, when the caller has authenticated it already (the OAuth token endpoint). */
  readonly client?: ClientRecord;
  /**
   * Where it is kept: in its family's refresh chain at a generation (auth/refresh-chain.ts), or,
   * for a family made before chains, as a row under its hash.
   */
  readonly kept:
    | { readonly chain: RefreshChainRecord; readonly generation: number }
    | { readonly hash: string };
}

/**
 * The refresh token presented and its family, or undefined when either is unknown: a token of a
 * chain whose mac is not its family's, or whose generation the family has not reached, is unknown
 * too. A caller that checks the family first (the OAuth token endpoint: its resource and scope)
 * hands what it read to refreshGrantTokens, which then does not read them again: two round trips
 * fewer on PostgreSQL.
 */
export async function readPresented(deps: Deps, refreshToken: string): Promise<PresentedToken | undefined> {
  const named = parseChainToken(refreshToken);
  if (named === undefined) {
    const hash = sha256(refreshToken);
    const token = await deps.store.getRefreshToken(hash);
    const family = token ? await deps.store.getTokenFamily(token.family_id) : undefined;
    return token && family ? { token, family, kept: { hash } } : undefined;
  }
  const chain = await deps.store.getRefreshChain(named.familyId);
  // The mac first, whatever the generation: how long a refusal takes says nothing of how far the
  // family has got. A valid mac beyond it (a store restored from an older copy) is no token either.
  if (!chain || !chainMacValid(chain.seed, named) || named.generation > chain.generation) return undefined;
  const family = await deps.store.getTokenFamily(named.familyId);
  if (!family) return undefined;
  const status = named.generation === chain.generation ? 'current' : 'rotated';
  const { family_id, issued_at, expires_at } = chain;
  return {
    token: { family_id, status, issued_at, expires_at },
    family,
    kept: { chain, generation: named.generation },
  };
}

/**
 * The token that replaces the one presented, and the compare-and-set that spends it: its chain's
 * next generation, or, for a token kept as a row, the first of the family's new chain.
 */
function nextRefreshToken(presented: PresentedToken, endsAt: string | undefined, now: Date) {
  const { kept, family } = presented;
  if ('hash' in kept) {
    const start = newRefreshChain(family.family_id, endsAt, now);
    return {
      token: start.token,
      rotate: (tx: TxDeps) => tx.store.rotateRefreshToken(kept.hash, start.record),
    };
  }
  const times = { issued_at: now.toISOString(), expires_at: refreshExpiry(endsAt, now) };
  return {
    token: chainToken(kept.chain.seed, family.family_id, kept.generation + 1),
    rotate: (tx: TxDeps) => tx.store.advanceRefreshChain(family.family_id, kept.generation, times),
  };
}

/** A spent token presented again: the family, every grant it covers and the audit event end in one commit. */
async function endForReuse(
  deps: Deps,
  family: TokenFamilyRecord,
  grants: readonly GrantRecord[],
  now: Date,
): Promise<Result<never>> {
  await inTransaction(deps, (tx) => endFamilyForReuse(tx, family, grants, now), {
    subject: family.subject_id,
  });
  return reuseRefused();
}

async function endFamilyForReuse(
  tx: TxDeps,
  family: TokenFamilyRecord,
  grants: readonly GrantRecord[],
  now: Date,
): Promise<void> {
  await endFamily(tx, family.family_id, now.toISOString(), 'token_reuse');
  for (const g of grants) await revokeGrantEverywhere(tx, g.grant_id, now, 'token_reuse');
  const first = grants[0];
  await recordAudit(
    tx,
    { kind: 'grantee', id: family.client_id },
    family.subject_id,
    {
      action: 'refresh_reuse',
      ...(first !== undefined ? { grantId: first.grant_id } : {}),
      outcome: 'denied',
      detail: `a spent refresh token was presented again; its token family and its ${grants.length} grant(s) are revoked`,
    },
    now,
  );
}

/** What a client is told when it presents a spent refresh token: why its access ended. */
function reuseRefused() {
  return fail(
    'invalid_grant',
    'this refresh token was already used once; presenting it again ended this access to be safe, since a copied token looks the same (refresh one at a time); ask the person to grant access again',
  );
}

/**
 * The refusal for a family whose access has ended, saying who ended it (the person, the client
 * itself, or reuse detection) or when it expired; undefined while a grant of it is active.
 */
function endedAccess(
  family: TokenFamilyRecord,
  grants: readonly GrantRecord[],
  now: Date,
): Extract<Result<never>, { ok: false }> | undefined {
  const statuses = grants.map((g) => grantStatusAt(g, now));
  if (statuses.some((s) => s === 'active') && family.status === 'active') return undefined;
  const again = 'ask the person to grant access again';
  const grantId = grants[0]?.grant_id;
  const gone = (description: string) =>
    fail('grant_gone', description, grantId !== undefined ? { grantId } : undefined);
  if (family.revoked_reason === 'token_reuse') {
    return gone(`this access was ended because one of its refresh tokens was presented twice; ${again}`);
  }
  if (family.revoked_reason === 'client_revoked') return gone(`this app ended this access itself; ${again}`);
  if (statuses.every((s) => s === 'revoked')) return gone(`the person ended this access; ${again}`);
  if (statuses.every((s) => s !== 'active'))
    return fail('invalid_grant', `this access has expired; ${again}`);
  return invalidGrant();
}
