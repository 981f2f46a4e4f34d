import type { AnyDeps } from '../deps.ts';
import { DEFAULT_RESOURCE, resourceUrl } from './resources.ts';

export interface IssuedToken {
  readonly access_token: string;
  /** RFC 9449 §5: `DPoP` for a token bound to a DPoP key (`cnf.jkt`), else `Bearer`. */
  readonly token_type: 'Bearer' | 'DPoP';
  readonly expires_in: number;
}

/** The token_type of a token bound to `jkt`, or of a bearer token. */
function typeOf(jkt: string | undefined): IssuedToken['token_type'] {
  return jkt === undefined ? 'Bearer' : 'DPoP';
}

/** A subject (owner) token for the owner surfaces. */
export async function issueSubjectToken(
  deps: AnyDeps,
  subjectId: string,
  ttlSeconds?: number,
  /** RFC 9449: the DPoP key thumbprint to bind the token to. */
  jkt?: string,
): Promise<IssuedToken> {
  const ttl = ttlSeconds ?? deps.provider.tokenTtlSeconds;
  const access_token = await deps.tokens.mint(
    { kind: 'subject', subjectId },
    ttl,
    deps.clock(),
    resourceUrl(deps.provider, DEFAULT_RESOURCE),
    jkt,
  );
  return { access_token, token_type: typeOf(jkt), expires_in: ttl };
}

/** A grant token, bound to one grant and its grantee. */
export async function issueGrantToken(
  deps: AnyDeps,
  grant: { grant_id: string; grantee_id: string },
  ttlSeconds?: number,
  /** The resource the token is for (RFC 8707); the HTTP API when absent. */
  audience?: string,
  /** RFC 9449: the DPoP key thumbprint to bind the token to. */
  jkt?: string,
): Promise<IssuedToken> {
  const ttl = ttlSeconds ?? deps.provider.tokenTtlSeconds;
  const access_token = await deps.tokens.mint(
    { kind: 'grant', grantId: grant.grant_id, clientId: grant.grantee_id },
    ttl,
    deps.clock(),
    audience ?? resourceUrl(deps.provider, DEFAULT_RESOURCE),
    jkt,
  );
  return { access_token, token_type: typeOf(jkt), expires_in: ttl };
}

/** A grant-package token: one token over several grants of one grantee (WIRE-NOTES §4). */
export async function issuePackageToken(
  deps: AnyDeps,
  pkg: { packageId: string; grantIds: readonly string[]; clientId: string },
  ttlSeconds: number,
  audience?: string,
  /** RFC 9449: the DPoP key thumbprint to bind the token to. */
  jkt?: string,
): Promise<IssuedToken> {
  const access_token = await deps.tokens.mint(
    { kind: 'package', packageId: pkg.packageId, grantIds: pkg.grantIds, clientId: pkg.clientId },
    ttlSeconds,
    deps.clock(),
    audience ?? resourceUrl(deps.provider, DEFAULT_RESOURCE),
    jkt,
  );
  return { access_token, token_type: typeOf(jkt), expires_in: ttlSeconds };
}
