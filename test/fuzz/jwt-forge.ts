import { createHmac, createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { Rand } from './rand.ts';
import { randomJson, randomString } from './values.ts';

// Bad bearer tokens, made from a genuine one: unsigned (`alg: none`), signed with another key,
// expired, not valid yet (`nbf`), for another audience or issuer, tampered after signing, or
// spelled in a non-canonical base64url. Most are signed with the provider's own key, so that
// the check that must refuse them is the claim check, not the signature.

export const JWT_FLAWS = [
  'alg-none',
  'wrong-key',
  'expired',
  'future-nbf',
  'future-iat',
  'wrong-audience',
  'wrong-issuer',
  'wrong-typ',
  'alg-confusion',
  'missing-claim',
  'odd-claims',
  'tampered-payload',
  'tampered-signature',
  'non-canonical',
  'bad-structure',
  'bad-header',
] as const;
export type JwtFlaw = (typeof JWT_FLAWS)[number];

interface Decoded {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly signature: string;
  readonly text: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

export class JwtForge {
  readonly #key: KeyObject;
  readonly #otherKey: KeyObject;

  constructor(privateJwk: Record<string, unknown>) {
    this.#key = createPrivateKey({ key: privateJwk as never, format: 'jwk' });
    this.#otherKey = generateKeyPairSync('ed25519').privateKey;
  }

  /** A token with `flaw`, made from the genuine `token`; also the words of the header it goes in. */
  forge(rand: Rand, token: string, flaw: JwtFlaw): { authorization: string } {
    const d = decode(token);
    const now = Math.floor(Date.now() / 1000);
    const signed = (header: Record<string, unknown>, payload: Record<string, unknown>, key = this.#key) => {
      const input = `${b64(header)}.${b64(payload)}`;
      return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
    };
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    switch (flaw) {
      case 'alg-none': {
        const header = { ...d.header, alg: rand.pick(['none', 'None', 'NONE', 'nOnE']) };
        const sig = rand.pick(['', d.signature, 'AA']);
        return bearer(`${b64(header)}.${b64(d.payload)}.${sig}`);
      }
      case 'wrong-key':
        return bearer(signed(d.header, d.payload, this.#otherKey));
      case 'expired': {
        const exp = now - rand.pick([1, 61, 3600, 86_400 * 400]);
        return bearer(signed(d.header, { ...d.payload, exp, iat: exp - 3600 }));
      }
      case 'future-nbf':
        return bearer(signed(d.header, { ...d.payload, nbf: now + rand.pick([5, 120, 86_400, 10 ** 10]) }));
      case 'future-iat':
        return bearer(signed(d.header, { ...d.payload, iat: now + rand.pick([120, 86_400 * 365]) }));
      case 'wrong-audience': {
        const aud = String(d.payload['aud'] ?? '');
        const other = rand.pick([
          `${aud}/`,
          aud.replace(/\/[^/]*$/, '/elsewhere'),
          'https://attacker.example/mcp',
          aud.toUpperCase(),
          '',
        ]);
        return bearer(signed(d.header, { ...d.payload, aud: rand.chance(0.3) ? [other] : other }));
      }
      case 'wrong-issuer':
        return bearer(
          signed(d.header, {
            ...d.payload,
            iss: rand.pick(['https://evil.example', '', `${d.payload['iss']}/`]),
          }),
        );
      case 'wrong-typ': {
        const { typ: _typ, ...rest } = d.header;
        const header = rand.chance(0.5)
          ? rest
          : { ...d.header, typ: rand.pick(['JWT', 'at+JWT', 'application/at+jwt ', 1]) };
        return bearer(signed(header, d.payload));
      }
      case 'alg-confusion': {
        // HS256 keyed with the public key's bytes: the classic confusion a verifier must refuse.
        const header = { ...d.header, alg: rand.pick(['HS256', 'ES256', 'RS256', 'EdDSA ']) };
        const input = `${b64(header)}.${b64(d.payload)}`;
        const sig = createHmac('sha256', 'public-key-bytes').update(input).digest('base64url');
        return bearer(`${input}.${sig}`);
      }
      case 'missing-claim': {
        const payload = { ...d.payload };
        for (const k of ['exp', 'iat', 'jti', 'sub', 'aud', 'iss', 'ppx_kind', 'grant_id', 'client_id']) {
          if (rand.chance(0.3)) delete payload[k];
        }
        if (Object.keys(payload).length === Object.keys(d.payload).length) delete payload['exp'];
        return bearer(signed(d.header, payload));
      }
      case 'odd-claims': {
        const payload: Record<string, unknown> = { ...d.payload };
        const key = rand.pick([
          'exp',
          'iat',
          'sub',
          'jti',
          'ppx_kind',
          'grant_id',
          'grant_ids',
          'client_id',
          'package_id',
          'aud',
        ]);
        payload[key] = rand.pick<unknown>([
          randomJson(rand, 2),
          randomString(rand, 300),
          'x'.repeat(2000),
          Array.from({ length: 200 }, (_, i) => `ppx:grant:${i}`),
          1e308,
          -1,
          '',
          null,
          'did:example:user-demo-0001',
        ]);
        if (rand.chance(0.3))
          payload['ppx_kind'] = rand.pick(['subject', 'grant', 'package', 'operator', '']);
        return bearer(signed(d.header, payload));
      }
      case 'tampered-payload': {
        const payload = {
          ...d.payload,
          [rand.pick(['grant_id', 'sub', 'ppx_kind', 'exp'])]: rand.pick([
            'ppx:grant:other',
            'subject',
            9_999_999_999,
          ]),
        };
        return bearer(`${d.text.split('.')[0]}.${b64(payload)}.${d.signature}`);
      }
      case 'tampered-signature': {
        const sig = d.signature;
        const at = rand.int(0, Math.max(0, sig.length - 2));
        const swapped = sig[at] === 'A' ? 'B' : 'A';
        const kind = rand.int(0, 2);
        const out =
          kind === 0
            ? sig.slice(0, at) + swapped + sig.slice(at + 1)
            : kind === 1
              ? sig.slice(0, -4)
              : `${sig}AAAA`;
        return bearer(`${d.text.split('.').slice(0, 2).join('.')}.${out}`);
      }
      case 'non-canonical':
        return bearer(nonCanonical(rand, d.text));
      case 'bad-structure':
        return bearer(
          rand.pick([
            d.text.split('.').slice(0, 2).join('.'),
            `${d.text}.`,
            `${d.text}.${d.signature}`,
            `${d.text}.a.b`,
            '..',
            '.',
            `${d.text.slice(0, -1)}!`,
            `${d.text}${'A'.repeat(rand.pick([100, 4096, 9000]))}`,
            Buffer.from(d.text).toString('base64'),
            d.text.replace(/\./g, '%2E'),
            `${b64({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a.b.c.d`,
            randomString(rand, 60).replace(/\s/g, '') || 'x',
          ]),
        );
      case 'bad-header':
        return {
          authorization: rand.pick([
            `bearer ${token}`,
            `BEARER ${token}`,
            `Bearer  ${token}`,
            `Bearer\t${token}`,
            `Bearer ${token} ${token}`,
            `Bearer ${token},`,
            'Bearer',
            'Bearer ',
            `Basic ${Buffer.from('a:b').toString('base64')}`,
            `Token ${token}`,
            `${token}`,
            `Bearer "${token}"`,
            `Bearer ${token}\u00a0`,
          ]),
        };
    }
  }
}

function decode(token: string): Decoded {
  const [h = '', p = '', s = ''] = token.split('.');
  const parse = (segment: string) => {
    try {
      return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  return { header: parse(h), payload: parse(p), signature: s, text: token };
}

/**
 * Another spelling of the same bytes, or nearly: pad bits set in a segment's last character,
 * `=` padding, the standard alphabet's `+` and `/`, a segment re-encoded with a line break.
 */
function nonCanonical(rand: Rand, token: string): string {
  const parts = token.split('.');
  const i = rand.int(0, parts.length - 1);
  const seg = parts[i] ?? '';
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  switch (rand.int(0, 3)) {
    case 0: {
      // Same decoded bytes, other pad bits: bump the last character within its unused low bits.
      const last = seg.at(-1) ?? 'A';
      const idx = alphabet.indexOf(last);
      const padBits = seg.length % 4 === 2 ? 4 : seg.length % 4 === 3 ? 2 : 0;
      if (padBits === 0 || idx < 0) parts[i] = `${seg}=`;
      else
        parts[i] =
          seg.slice(0, -1) + alphabet[(idx & ~((1 << padBits) - 1)) | rand.int(1, (1 << padBits) - 1)];
      break;
    }
    case 1:
      parts[i] = `${seg}${'='.repeat(rand.int(1, 2))}`;
      break;
    case 2:
      parts[i] = Buffer.from(seg, 'base64url').toString('base64').replace(/=+$/, '');
      if (parts[i] === seg) parts[i] = `${seg}==`;
      break;
    default:
      parts[i] = `${seg.slice(0, 4)}\n${seg.slice(4)}`.replace('\n', rand.pick(['%0A', '', ' ']));
  }
  return parts.join('.');
}
