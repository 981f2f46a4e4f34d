import { base64url, randomToken, sha256 } from './base64url.ts';

/**
 * A DPoP key (RFC 9449): an ES256 key pair made by WebCrypto, its private half not extractable.
 * `proof` signs one request; the provider binds tokens to the key's thumbprint (`cnf.jkt`).
 */
export class DpopKey {
  readonly #sign: (input: Uint8Array) => Promise<ArrayBuffer>;
  readonly #jwk: { kty: string; crv: string; x: string; y: string };
  /** The last `DPoP-Nonce` each origin gave out (RFC 9449 §8, §9). */
  readonly #nonces = new Map<string, string>();

  private constructor(
    sign: (input: Uint8Array) => Promise<ArrayBuffer>,
    jwk: { kty: string; crv: string; x: string; y: string },
  ) {
    this.#sign = sign;
    this.#jwk = jwk;
  }

  static async generate(): Promise<DpopKey> {
    const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ]);
    const jwk = await crypto.subtle.exportKey('jwk', keys.publicKey);
    const sign = (input: Uint8Array) =>
      crypto.subtle.sign(
        { name: 'ECDSA', hash: 'SHA-256' },
        keys.privateKey,
        input as Uint8Array<ArrayBuffer>,
      );
    return new DpopKey(sign, { kty: 'EC', crv: 'P-256', x: jwk.x ?? '', y: jwk.y ?? '' });
  }

  /** The RFC 7638 thumbprint: what `cnf.jkt` and `dpop_jkt` hold. */
  async thumbprint(): Promise<string> {
    const { crv, kty, x, y } = this.#jwk;
    return base64url(await sha256(JSON.stringify({ crv, kty, x, y })));
  }

  /** A proof for `method url`; with `accessToken`, its `ath` (a resource request). */
  async proof(method: string, url: string, accessToken?: string): Promise<string> {
    const u = new URL(url);
    const htu = `${u.origin}${u.pathname}`;
    const nonce = this.#nonces.get(u.origin);
    const header = { typ: 'dpop+jwt', alg: 'ES256', jwk: this.#jwk };
    const payload = {
      jti: randomToken(16),
      htm: method.toUpperCase(),
      htu,
      iat: Math.floor(Date.now() / 1000),
      ...(accessToken !== undefined ? { ath: base64url(await sha256(accessToken)) } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
    };
    const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
    const signature = await this.#sign(new TextEncoder().encode(input));
    return `${input}.${base64url(signature)}`;
  }

  /** Keeps the nonce an answer gave; true when it is new (a refused proof is then worth retrying). */
  remember(url: string, headers: Headers): boolean {
    const nonce = headers.get('dpop-nonce');
    if (nonce === null) return false;
    const origin = new URL(url).origin;
    const fresh = this.#nonces.get(origin) !== nonce;
    this.#nonces.set(origin, nonce);
    return fresh;
  }
}
