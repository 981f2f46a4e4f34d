import { createHash } from 'node:crypto';
import {
  PROOF_FUTURE_SECONDS,
  PROOF_MAX_AGE_SECONDS,
  type VerifiedProof,
  verifyProof,
} from '../../auth/dpop.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { Deps } from '../deps.ts';

// A request's DPoP proof (RFC 9449 §4.3), checked in full: the proof itself (auth/dpop.ts), the
// server's nonce when it asks for one (§8, §9), and the replay ledger (§11.1), so that a proof
// works once on every instance. The token endpoints and the front door of the protected resources
// both ask here.

/** The request a proof must be for. */
export interface ProvedRequest {
  readonly method: string;
  /** The request's path (no query): the proof's `htu` is the provider's base URL and this path. */
  readonly path: string;
  /** The access token sent with the proof (resources); absent at the token endpoints. */
  readonly accessToken?: string;
  /** The key that token is bound to (`cnf.jkt`): a proof by another key is refused before it is recorded. */
  readonly boundTo?: string;
}

export async function checkProof(
  deps: Deps,
  header: string | undefined,
  request: ProvedRequest,
): Promise<Result<VerifiedProof>> {
  const now = deps.clock();
  const nonces = deps.dpop.nonces;
  const proof = await verifyProof(header, {
    htm: request.method,
    htu: deps.provider.baseUrl + request.path,
    now,
    ...(request.accessToken !== undefined ? { accessToken: request.accessToken } : {}),
    ...(nonces !== undefined ? { nonceOk: (nonce: string | undefined) => nonces.accepts(nonce, now) } : {}),
  });
  if (!proof.ok) return proof;
  // §4.3 step 12: the proof is made with the key the token is bound to. Checked before the ledger,
  // so that a token's holder without its key cannot fill the ledger with proofs of other keys.
  if (request.boundTo !== undefined && proof.value.jkt !== request.boundTo) {
    return fail(
      'invalid_dpop_proof',
      'the DPoP proof is made with another key than the one this access token is bound to',
    );
  }
  // §11.1: single use while the proof could be accepted at all; keyed per key, so one client
  // cannot spend another's jti.
  const key = createHash('sha256').update(`${proof.value.jkt}.${proof.value.jti}`).digest('base64url');
  const until = (proof.value.iat + PROOF_MAX_AGE_SECONDS + PROOF_FUTURE_SECONDS) * 1000;
  if (!(await deps.dpop.ledger.take(key, until, now))) {
    return fail('invalid_dpop_proof', 'the DPoP proof was already used: make a new proof for each request');
  }
  return ok(proof.value);
}

/** The nonce to send with an answer (`DPoP-Nonce`), when the server asks for nonces. */
export function currentNonce(deps: Deps): string | undefined {
  return deps.dpop.nonces?.current(deps.clock());
}

/** What a token request's proof binds (RFC 9449 §5): the access tokens, and a public client's refresh tokens. */
export interface DpopBinding {
  readonly jkt: string;
  readonly bindRefresh: boolean;
}

/**
 * RFC 9449 §10: a code the client bound to a key with `dpop_jkt` is exchanged only with a proof
 * made with that key. Checked before the code is spent, so that whoever intercepted the code
 * without the key cannot use it, nor cancel it for the client that holds the key.
 */
export function codeKeyCheck(
  codeBoundTo: string | undefined,
  proof: { readonly jkt: string } | undefined,
): Result<true> {
  if (codeBoundTo === undefined || proof?.jkt === codeBoundTo) return ok(true);
  return fail(
    'invalid_dpop_proof',
    proof === undefined
      ? 'this authorization code was bound to a DPoP key (dpop_jkt): send a DPoP proof made with that key'
      : 'the DPoP proof is made with another key than the dpop_jkt of the authorization request',
  );
}

/** RFC 9449 §5.2 `dpop_bound_access_tokens`: the client asked never to be given a bearer token. */
function requiresDpop(client: ClientRecord): boolean {
  return client.metadata?.['dpop_bound_access_tokens'] === true;
}

/**
 * The binding of a token request: to the key of its proof when it sent one (a public client's
 * refresh tokens too: it has no other credential, §5), none otherwise; a client registered with
 * `dpop_bound_access_tokens` must send one (§5.2).
 */
export function bindingFor(
  client: ClientRecord,
  proof: { readonly jkt: string } | undefined,
): Result<DpopBinding | undefined> {
  if (proof !== undefined) return ok({ jkt: proof.jkt, bindRefresh: client.kind === 'public' });
  if (requiresDpop(client)) {
    return fail(
      'invalid_dpop_proof',
      'this client is registered with dpop_bound_access_tokens: every token request needs a DPoP proof',
    );
  }
  return ok(undefined);
}
