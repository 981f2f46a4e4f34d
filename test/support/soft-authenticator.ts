import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

// A software WebAuthn authenticator for unit tests of operations/accounts/passkeys.ts: it makes
// the JSON a browser's `credential.toJSON()` gives (attestation "none", ES256, user verified),
// with a use counter the test sets, so the operations can be checked without a browser.

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  const b = Buffer.alloc(3);
  b[0] = (major << 5) | 25;
  b.writeUInt16BE(n, 1);
  return b;
}

function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const t = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, t.length), t]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), v]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

const b64u = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

function counterBytes(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export class SoftAuthenticator {
  readonly id = randomBytes(16);
  readonly #key: KeyObject;
  readonly #pub: { x: string; y: string };
  userHandle = '';
  readonly rpId: string;
  readonly origin: string;
  constructor(rpId: string, origin: string) {
    this.rpId = rpId;
    this.origin = origin;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#key = privateKey;
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    this.#pub = { x: jwk.x, y: jwk.y };
  }

  get credentialId(): string {
    return b64u(this.id);
  }

  #clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** The answer to registration options (`navigator.credentials.create`). */
  register(options: { challenge: string; user: { id: string } }, counter = 0): Record<string, unknown> {
    this.userHandle = options.user.id;
    const cose = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(this.#pub.x, 'base64url')],
      [-3, Buffer.from(this.#pub.y, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.id.length);
    const authData = Buffer.concat([
      sha(this.rpId),
      Buffer.from([0x01 | 0x04 | 0x40]),
      counterBytes(counter),
      Buffer.alloc(16),
      idLength,
      this.id,
      cbor(cose),
    ]);
    const attestation = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(this.#clientData('webauthn.create', options.challenge)),
        attestationObject: b64u(attestation),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to authentication options (`navigator.credentials.get`), signed with `counter`. */
  use(options: { challenge: string }, counter: number): Record<string, unknown> {
    const clientData = this.#clientData('webauthn.get', options.challenge);
    const authData = Buffer.concat([sha(this.rpId), Buffer.from([0x01 | 0x04]), counterBytes(counter)]);
    const signature = sign('sha256', Buffer.concat([authData, sha(clientData)]), this.#key);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: this.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
