import type { Context } from 'hono';
import { fail, type PpxFailure, type Result } from '../../model/errors.ts';
import { authenticate, type Caller } from '../../operations/callers/caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { checkProof, currentNonce } from '../../operations/tokens/dpop-proof.ts';
import { type ResourceKind, resourceMetadataUrl } from '../../operations/tokens/resources.ts';
import { type CallerKind, noteCaller } from './access-log.ts';
import { limiterKey, type PresentedToken, readCredential } from './bearer.ts';
import { type DpopContext, type Refusal, refusalOf } from './challenge.ts';
import { clientAddress, limitRequest, RATE_LIMITED } from './rate-limit.ts';

// The one front door of every surface that takes tokens (ARCHITECTURE.md "One front door"): the
// HTTP API, the AG-UI stream, /mcp and /a2a each enter here. In the order WIRE-NOTES §2.7 sets:
// count the request against the API's budget (one per token, else per address), read the token
// (`Bearer`, or `DPoP` with its proof), authenticate it for this surface's own resource (RFC 8707:
// a token for another resource is invalid here), check that a DPoP-bound token comes with a valid
// proof by its key (RFC 9449 §7), and name the caller for the access log. A failure is a value, a
// `Refusal` with its challenge (challenge.ts); the surface answers it in its own error body.

/** A protected resource: which one, and how its surface turns a token into a caller. */
export interface ProtectedResource<C> {
  readonly kind: ResourceKind;
  /** Who a token names for this resource, checked against the grant's state now; or why not. */
  authenticate(deps: Deps, token: string): Promise<Result<C>>;
  /** The caller's kind, for the access log (never who). */
  kindOf(caller: C): CallerKind;
}

/** The HTTP API (and the AG-UI stream on it): the profile's owner, or one grant (operations/caller.ts). */
export const API: ProtectedResource<Caller> = {
  kind: 'api',
  authenticate,
  kindOf: (caller) => caller.kind,
};

/**
 * `required`: no token is a bare 401. `optional`: no token enters without a caller (the AG-UI
 * stream, whose person may come with a browser session instead). `none`: a public route; a token
 * is not read, and the request counts against its address, so that a made-up bearer token on
 * each request is not a fresh budget for guessing.
 */
export type TokenNeed = 'required' | 'optional' | 'none';

/** A request past the door, or refused there; both carry the headers every answer to it carries. */
export type Entry<C> =
  | {
      readonly ok: true;
      /** Undefined (for `optional` and `none`) when no token was presented. */
      readonly caller: C;
      /** The token as presented (a stream checks it again later), when there is one. */
      readonly token: string | undefined;
      readonly headers: readonly (readonly [string, string])[];
      /**
       * A refusal decided after the door (a scope, the grant's state mid-call), in the scheme the
       * request used: a token presented as `DPoP` is challenged with `DPoP` (RFC 9449 §7.1).
       */
      refuse(failure: PpxFailure, tokenPresented?: boolean): Refusal;
    }
  | {
      readonly ok: false;
      readonly refusal: Refusal;
      readonly headers: readonly (readonly [string, string])[];
    };

/** A request past the door. */
export type Entered<C> = Extract<Entry<C>, { readonly ok: true }>;

/** The front door for one protected resource, built once per mount. */
export class FrontDoor<C> {
  readonly #resource: ProtectedResource<C>;
  /** RFC 9728 §3: the metadata every challenge of this resource names. */
  readonly metadata: string;

  constructor(deps: Deps, resource: ProtectedResource<C>) {
    this.#resource = resource;
    this.metadata = resourceMetadataUrl(deps.provider, resource.kind);
  }

  enter(deps: Deps, c: Context, need: 'required'): Promise<Entry<C>>;
  enter(deps: Deps, c: Context, need: TokenNeed): Promise<Entry<C | undefined>>;
  async enter(deps: Deps, c: Context, need: TokenNeed): Promise<Entry<C | undefined>> {
    const presented = need === 'none' ? undefined : readCredential(c.req.header('authorization'));
    const token = presented?.ok ? { ok: true as const, value: presented.value.token } : presented;
    const limited = await limitRequest(deps, 'api', () => limiterKey(token, clientAddress(c)));
    const headers = limited?.headers ?? [];
    if (limited?.allowed === false) return { ok: false, refusal: this.refuse(RATE_LIMITED), headers };
    if (presented === undefined) {
      if (need !== 'required') {
        const refuse = (failure: PpxFailure, tokenPresented?: boolean) =>
          this.refuse(failure, tokenPresented);
        return { ok: true, caller: undefined, token: undefined, headers, refuse };
      }
      const none = fail('invalid_token', 'an access token is required').error;
      return { ok: false, refusal: this.refuse(none, false), headers };
    }
    if (!presented.ok) return { ok: false, refusal: this.refuse(presented.error), headers };
    const { scheme, token: value } = presented.value;
    const dpop = scheme === 'DPoP' ? { nonce: currentNonce(deps) } : undefined;
    const caller = await this.#resource.authenticate(deps, value);
    if (!caller.ok) return { ok: false, refusal: this.refuse(caller.error, true, dpop), headers };
    const bound = await proveBinding(deps, c, presented.value);
    if (!bound.ok) {
      return { ok: false, refusal: this.refuse(bound.error, true, { nonce: currentNonce(deps) }), headers };
    }
    noteCaller(c.req.raw, this.#resource.kindOf(caller.value));
    const refuse = (failure: PpxFailure, tokenPresented?: boolean) =>
      this.refuse(failure, tokenPresented, dpop);
    return { ok: true, caller: caller.value, token: value, headers, refuse };
  }

  /**
   * A refusal of this resource, for a failure found at the door or with no entry at all (a
   * request's Origin); `dpop` when the request concerns DPoP (its challenge then uses that
   * scheme). After the door, a surface refuses with its entry's `refuse`, which knows the scheme.
   */
  refuse(failure: PpxFailure, tokenPresented = true, dpop?: DpopContext): Refusal {
    return refusalOf(failure, this.metadata, tokenPresented, dpop);
  }
}

/**
 * RFC 9449 §7.1: a token bound to a DPoP key (`cnf.jkt`) is accepted only as `DPoP <token>` with
 * a proof for this very request (method, URL, a fresh single-use jti, `ath` of this token) made
 * with that key; a bearer token is accepted only as `Bearer`, so that the scheme always says
 * which rule applies. The token was authenticated just before: its binding is read as signed.
 */
async function proveBinding(deps: Deps, c: Context, presented: PresentedToken): Promise<Result<true>> {
  const jkt = deps.tokens.boundKey(presented.token);
  if (presented.scheme === 'Bearer') {
    if (jkt === undefined) return { ok: true, value: true };
    return fail(
      'invalid_token',
      'this access token is bound to a DPoP key: send it as "Authorization: DPoP <token>" with a DPoP proof',
    );
  }
  if (jkt === undefined) {
    return fail(
      'invalid_token',
      'this access token is not DPoP-bound: send it as "Authorization: Bearer <token>"',
    );
  }
  const proof = await checkProof(deps, c.req.header('dpop'), {
    method: c.req.method,
    path: new URL(c.req.url).pathname,
    accessToken: presented.token,
    boundTo: jkt,
  });
  return proof.ok ? { ok: true, value: true } : proof;
}
