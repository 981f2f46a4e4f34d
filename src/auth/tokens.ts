import { randomUUID, sign } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
import { fail, ok, type Result } from '../model/errors.ts';
import { canonicalJwt } from './jwt-format.ts';
import type { SigningKey } from './signing-keys.ts';
import { TOKEN_ALG } from './signing-keys.ts';

// Bearer tokens are signed JWTs naming a subject (the profile owner), one grant (a grantee), or
// a grant package (several grants of one grantee, WIRE-NOTES §4). The signature only says who the token was issued to: every request still re-reads
// the grant's current state, so revocation takes effect on the next request (WIRE-NOTES §2.5).

export type TokenSubject =
  | { readonly kind: 'subject'; readonly subjectId: string }
  | { readonly kind: 'grant'; readonly grantId: string; readonly clientId: string }
  | {
      readonly kind: 'package';
      readonly packageId: string;
      readonly grantIds: readonly string[];
      readonly clientId: string;
    };

export interface VerifiedToken {
  readonly principal: TokenSubject;
  readonly tokenId: string;
  readonly expiresAt: number;
  /** Seconds since the epoch, as signed (`iat`). */
  readonly issuedAt: number;
  /** The resource the token was minted for (RFC 8707 / RFC 9068 `aud`). */
  readonly audience: string;
  /** RFC 9449 §6.1 `cnf.jkt`: the thumbprint of the DPoP key the token is bound to, if it is. */
  readonly jkt?: string;
}

export interface TokenOptions {
  readonly issuer: string;
  /** Told every verification's outcome (`valid`, or the refusal's code): the provider's metrics. */
  readonly onVerified?: (outcome: string) => void;
}

const CACHE_LIMIT = 10_000;

export class TokenService {
  readonly #key: SigningKey;
  readonly #options: TokenOptions;
  /**
   * Verified signatures, by token, until the token's own expiry; bounded, safe to lose. Keyed by
   * the string, which is one per token because only the canonical spelling is ever verified.
   */
  readonly #verified = new Map<string, VerifiedToken>();

  constructor(key: SigningKey, options: TokenOptions) {
    this.#key = key;
    this.#options = options;
  }

  get publicJwk() {
    return this.#key.publicJwk;
  }

  /**
   * The key documents the provider signs as itself (the A2A agent card's JWS) are signed with:
   * the tokens' own, published in the provider's JWKS, so one key set verifies everything.
   */
  get documentSigner(): {
    readonly kid: string;
    readonly alg: string;
    readonly privateKey: SigningKey['privateKey'];
  } {
    return { kid: this.#key.kid, alg: TOKEN_ALG, privateKey: this.#key.privateKey };
  }

  /**
   * `audience` is the resource the token is for (RFC 8707; operations/tokens/resources.ts). The compact
   * JWS (RFC 7515 §7.1) is put together here and signed with node:crypto's one-shot Ed25519 sign,
   * in the calling thread: jose's SignJWT goes through WebCrypto, whose every sign is a job on the
   * thread pool and a promise (77 µs against 29 µs here, measured; a token refresh signs one token).
   * jose still verifies every token (verify, below), so a mistake here would fail every request.
   */
  async mint(
    subject: TokenSubject,
    ttlSeconds: number,
    now: Date,
    audience: string,
    /** RFC 9449 §6.1: bind the token to this DPoP key thumbprint (`cnf.jkt`). */
    jkt?: string,
  ): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000);
    const header = { alg: TOKEN_ALG, kid: this.#key.kid, typ: 'at+jwt' };
    const payload = {
      ...claimsOf(subject),
      iss: this.#options.issuer,
      aud: audience,
      sub: subject.kind === 'subject' ? subject.subjectId : subject.clientId,
      jti: randomUUID(),
      iat,
      exp: iat + ttlSeconds,
      ...(jkt !== undefined ? { cnf: { jkt } } : {}),
    };
    const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
    return `${input}.${sign(null, Buffer.from(input), this.#key.signingKey).toString('base64url')}`;
  }

  /**
   * Checks signature, issuer, audience (one of `audiences`: the resources the caller serves) and
   * expiry. Never throws; failures are `invalid_token`.
   */
  async verify(token: string, now: Date, audiences: readonly string[]): Promise<Result<VerifiedToken>> {
    const result = await this.#verify(token, now, audiences);
    this.#options.onVerified?.(result.ok ? 'valid' : result.error.code);
    return result;
  }

  /**
   * The DPoP key a token verified just before is bound to (RFC 9449 §6.1), for the front door's
   * check after a surface authenticated the token: read from the verification cache, else from
   * the payload of this exact string (which was verified: only its signed bytes are read).
   */
  boundKey(token: string): string | undefined {
    const cached = this.#verified.get(token);
    if (cached) return cached.jkt;
    try {
      const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
      return confirmationOf(payload) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async #verify(token: string, now: Date, audiences: readonly string[]): Promise<Result<VerifiedToken>> {
    const cached = this.#verified.get(token);
    if (cached) {
      if (!audiences.includes(cached.audience)) return otherAudience();
      if (cached.expiresAt * 1000 > now.getTime()) return ok(cached);
      this.#verified.delete(token);
      return fail('invalid_token', 'the access token has expired');
    }
    // Only canonical spellings are verified, hence cached: a hit above is always the one spelling.
    if (canonicalJwt(token) !== token) return fail('invalid_token', 'the access token is malformed');
    try {
      const { payload } = await jwtVerify(token, this.#key.publicKey, {
        issuer: this.#options.issuer,
        audience: [...audiences],
        algorithms: [TOKEN_ALG],
        typ: 'at+jwt',
        currentDate: now,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      });
      const principal = principalOf(payload);
      // jose accepted one of `audiences`: the token's own (a string, or a list holding one of them).
      const aud = payload.aud;
      const audience = typeof aud === 'string' ? aud : audiences.find((a) => aud?.includes(a));
      if (audience === undefined) return otherAudience();
      if (!principal) return fail('invalid_token', 'the access token does not name a subject or a grant');
      const jkt = confirmationOf(payload);
      if (jkt === null) return fail('invalid_token', 'the access token has a malformed cnf claim');
      const verified: VerifiedToken = {
        principal,
        tokenId: String(payload.jti),
        expiresAt: Number(payload.exp),
        issuedAt: Number(payload.iat),
        audience,
        ...(jkt !== undefined ? { jkt } : {}),
      };
      if (this.#verified.size >= CACHE_LIMIT) this.#verified.clear();
      this.#verified.set(token, verified);
      return ok(verified);
    } catch (e) {
      if (e instanceof errors.JWTExpired) return fail('invalid_token', 'the access token has expired');
      if (e instanceof errors.JWTClaimValidationFailed && e.claim === 'aud') return otherAudience();
      // A token signed with this key for another base URL: most often `ppx mint --base-url` not
      // matching the server's; saying so is the only hint the operator gets (jose checks `iss`
      // before `aud`, so this wins over "another resource").
      if (e instanceof errors.JWTClaimValidationFailed && e.claim === 'iss') {
        return fail('invalid_token', 'the access token was issued for another base URL');
      }
      return fail('invalid_token', 'the access token is not valid for this provider');
    }
  }
}

/** `cnf.jkt` when the token is DPoP-bound, undefined when it is not, null when `cnf` is malformed. */
function confirmationOf(payload: Record<string, unknown>): string | undefined | null {
  const cnf = payload['cnf'];
  if (cnf === undefined) return undefined;
  if (typeof cnf !== 'object' || cnf === null) return null;
  const jkt = (cnf as Record<string, unknown>)['jkt'];
  return typeof jkt === 'string' && jkt.length > 0 ? jkt : null;
}

function otherAudience() {
  return fail('invalid_token', 'the access token was issued for another resource');
}

function claimsOf(subject: TokenSubject): Record<string, unknown> {
  switch (subject.kind) {
    case 'subject':
      return { ppx_kind: 'subject' };
    case 'grant':
      return { ppx_kind: 'grant', grant_id: subject.grantId, client_id: subject.clientId };
    case 'package':
      return {
        ppx_kind: 'package',
        package_id: subject.packageId,
        grant_ids: [...subject.grantIds],
        client_id: subject.clientId,
      };
  }
}

function principalOf(payload: Record<string, unknown>): TokenSubject | undefined {
  const sub = payload['sub'];
  if (typeof sub !== 'string' || sub.length === 0) return undefined;
  if (payload['ppx_kind'] === 'subject') return { kind: 'subject', subjectId: sub };
  const grantId = payload['grant_id'];
  if (payload['ppx_kind'] === 'grant' && typeof grantId === 'string') {
    return { kind: 'grant', grantId, clientId: sub };
  }
  const grantIds = payload['grant_ids'];
  const packageId = payload['package_id'];
  if (
    payload['ppx_kind'] === 'package' &&
    typeof packageId === 'string' &&
    Array.isArray(grantIds) &&
    grantIds.length > 0 &&
    grantIds.every((g) => typeof g === 'string')
  ) {
    return { kind: 'package', packageId, grantIds, clientId: sub };
  }
  return undefined;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
