import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type SigningKey, signingKeyOf } from '../../../src/auth/signing-keys.ts';
import { TokenService, type TokenSubject } from '../../../src/auth/tokens.ts';
import type { Result } from '../../../src/model/errors.ts';
import { segmentSpellings } from '../../support/spellings.ts';

const ISS = 'https://ppx.example.test';
const NOW = new Date('2026-06-01T12:00:00.000Z');
const IAT = NOW.getTime() / 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function makeKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const signingKey = signingKeyOf(await exportJWK(privateKey));
  return { kid: await calculateJwkThumbprint(publicJwk), privateKey, signingKey, publicKey, publicJwk };
}

let key: SigningKey;
let otherKey: SigningKey;
/** A service whose every mint and verify is for one audience (the resource list is the callers'). */
const service = (k = key, iss = ISS, aud = ISS) => {
  const s = new TokenService(k, { issuer: iss });
  return {
    mint: (subject: TokenSubject, ttl: number, now: Date) => s.mint(subject, ttl, now, aud),
    verify: (token: string, now: Date) => s.verify(token, now, [aud]),
  };
};

before(async () => {
  key = await makeKey();
  otherKey = await makeKey();
});

function assertInvalid(r: Result<unknown>, description?: string) {
  assert.equal(r.ok, false, 'expected invalid_token, got ok');
  if (r.ok) return;
  assert.equal(r.error.code, 'invalid_token');
  if (description !== undefined) assert.equal(r.error.description, description);
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('TokenService round trip', () => {
  it('a subject token verifies to its subject, with a uuid jti and exp = iat + ttl', async () => {
    const s = service();
    const token = await s.mint({ kind: 'subject', subjectId: 'did:example:user-1' }, 600, NOW);
    const r = await s.verify(token, NOW);
    assert.ok(r.ok, r.ok ? '' : r.error.description);
    assert.deepEqual(r.value.principal, { kind: 'subject', subjectId: 'did:example:user-1' });
    assert.match(r.value.tokenId, UUID);
    assert.equal(r.value.expiresAt, IAT + 600);
  });

  it('a grant token verifies to its grant and client', async () => {
    const s = service();
    const token = await s.mint(
      { kind: 'grant', grantId: 'ppx:grant:g1', clientId: 'fragrance-demo' },
      60,
      NOW,
    );
    const r = await s.verify(token, NOW);
    assert.ok(r.ok);
    assert.deepEqual(r.value.principal, {
      kind: 'grant',
      grantId: 'ppx:grant:g1',
      clientId: 'fragrance-demo',
    });
  });

  it('the token header names EdDSA, the key id and at+jwt', async () => {
    const token = await service().mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    assert.deepEqual(header, { alg: 'EdDSA', kid: key.kid, typ: 'at+jwt' });
  });

  it('another instance with the same key and options verifies it too (no shared cache needed)', async () => {
    const token = await service().mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    assert.equal((await service().verify(token, NOW)).ok, true);
  });

  it('two tokens minted at the same instant differ (distinct jti)', async () => {
    const s = service();
    const a = await s.mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    const b = await s.mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    assert.notEqual(a, b);
  });
});

describe('TokenService refusals: invalid_token', () => {
  it('wrong audience', async () => {
    const token = await service(key, ISS, 'https://other.example').mint(
      { kind: 'subject', subjectId: 's' },
      60,
      NOW,
    );
    assertInvalid(await service().verify(token, NOW), 'the access token was issued for another resource');
  });

  it('wrong issuer', async () => {
    const token = await service(key, 'https://evil.example', ISS).mint(
      { kind: 'subject', subjectId: 's' },
      60,
      NOW,
    );
    assertInvalid(await service().verify(token, NOW), 'the access token was issued for another base URL');
  });

  it('expired: ok 1 s before exp, refused at exp', async () => {
    const s = service();
    const token = await s.mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    assertInvalid(
      await service().verify(token, new Date(NOW.getTime() + 60_000)),
      'the access token has expired',
    );
    assert.equal((await service().verify(token, new Date(NOW.getTime() + 59_000))).ok, true);
  });

  it('tampered signature', async () => {
    const token = await service().mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    const [h, p, sig] = token.split('.') as [string, string, string];
    const bytes = Buffer.from(sig, 'base64url');
    bytes[10] = bytes[10]! ^ 0xff;
    assertInvalid(await service().verify(`${h}.${p}.${bytes.toString('base64url')}`, NOW));
  });

  it('tampered payload (another subject) under the original signature', async () => {
    const token = await service().mint({ kind: 'subject', subjectId: 'alice' }, 60, NOW);
    const [h, p, sig] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    assertInvalid(await service().verify(`${h}.${b64({ ...payload, sub: 'bob' })}.${sig}`, NOW));
  });

  it('a grant token turned into a subject token by editing ppx_kind', async () => {
    const token = await service().mint({ kind: 'grant', grantId: 'ppx:grant:g', clientId: 'c' }, 60, NOW);
    const [h, p, sig] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    assertInvalid(await service().verify(`${h}.${b64({ ...payload, ppx_kind: 'subject' })}.${sig}`, NOW));
  });

  it('a token signed by another key', async () => {
    const token = await service(otherKey).mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    assertInvalid(await service().verify(token, NOW));
  });

  it('alg none, with and without a signature part', async () => {
    const header = b64({ alg: 'none', typ: 'at+jwt' });
    const payload = b64({
      iss: ISS,
      aud: ISS,
      sub: 's',
      ppx_kind: 'subject',
      jti: 'x',
      iat: IAT,
      exp: IAT + 60,
    });
    assertInvalid(await service().verify(`${header}.${payload}.`, NOW));
    assertInvalid(await service().verify(`${header}.${payload}.AAAA`, NOW));
  });

  it('HS256 signed with the public key as secret (algorithm confusion)', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(key.publicJwk));
    const token = await new SignJWT({ ppx_kind: 'subject' })
      .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(ISS)
      .setAudience(ISS)
      .setSubject('s')
      .setJti('x')
      .setIssuedAt(IAT)
      .setExpirationTime(IAT + 60)
      .sign(secret);
    assertInvalid(await service().verify(token, NOW));
  });

  it('a correctly signed JWT of the wrong typ', async () => {
    const token = await new SignJWT({ ppx_kind: 'subject' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setIssuer(ISS)
      .setAudience(ISS)
      .setSubject('s')
      .setJti('x')
      .setIssuedAt(IAT)
      .setExpirationTime(IAT + 60)
      .sign(key.privateKey);
    assertInvalid(await service().verify(token, NOW));
  });

  it('a correctly signed token that names neither a subject nor a grant', async () => {
    const token = await new SignJWT({ ppx_kind: 'grant' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
      .setIssuer(ISS)
      .setAudience(ISS)
      .setSubject('c')
      .setJti('x')
      .setIssuedAt(IAT)
      .setExpirationTime(IAT + 60)
      .sign(key.privateKey);
    assertInvalid(await service().verify(token, NOW), 'the access token does not name a subject or a grant');
  });

  it('a correctly signed token without exp', async () => {
    const token = await new SignJWT({ ppx_kind: 'subject' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
      .setIssuer(ISS)
      .setAudience(ISS)
      .setSubject('s')
      .setJti('x')
      .sign(key.privateKey);
    assertInvalid(await service().verify(token, NOW));
  });

  const garbage = [
    '',
    'abc',
    'a.b',
    'a.b.c',
    '...',
    'Bearer x.y.z',
    'a.b.c.d',
    'é.é.é',
    `${'a'.repeat(5000)}.b.c`,
    'null',
  ];
  for (const g of garbage) {
    it(`garbage ${JSON.stringify(g.length > 20 ? `${g.slice(0, 12)}…` : g)}`, async () => {
      assertInvalid(await service().verify(g, NOW));
    });
  }
});

describe('TokenService cache', () => {
  it('a cached verification does not outlive the token expiry', async () => {
    const s = service();
    const token = await s.mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    assert.equal((await s.verify(token, NOW)).ok, true); // now cached
    assert.equal((await s.verify(token, new Date(NOW.getTime() + 59_999))).ok, true);
    assertInvalid(await s.verify(token, new Date(NOW.getTime() + 60_000)), 'the access token has expired');
    assertInvalid(await s.verify(token, new Date(NOW.getTime() + 3_600_000)), 'the access token has expired');
  });

  it('a failed verification is not cached as a success', async () => {
    const s = service();
    const token = await s.mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    assertInvalid(await s.verify(token, new Date(NOW.getTime() + 120_000)));
    assert.equal((await s.verify(token, NOW)).ok, true);
  });
});

describe('TokenService: one token, one spelling (issue 10 item 6)', () => {
  /** The token with segment `i` spelled otherwise, when that segment has padding bits. */
  function respelled(token: string, i: number): string[] {
    const parts = token.split('.');
    return segmentSpellings(parts[i]!)
      .slice(1)
      .map((s) => parts.map((p, j) => (j === i ? s : p)).join('.'));
  }

  it('a non-canonical spelling of the signature is refused, before and after the canonical one is cached', async () => {
    const s = service();
    const token = await s.mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    const others = respelled(token, 2);
    assert.equal(others.length, 15);
    for (const t of others) assertInvalid(await s.verify(t, NOW), 'the access token is malformed');
    assert.equal((await s.verify(token, NOW)).ok, true); // now cached
    for (const t of others) assertInvalid(await s.verify(t, NOW), 'the access token is malformed');
  });

  it('a non-canonical spelling of the header or the payload is refused', async () => {
    const s = service();
    // Subjects of several lengths, so that the payload's length leaves padding bits in some.
    let tried = 0;
    for (const subjectId of ['s', 'su', 'sub', 'subj']) {
      const token = await s.mint({ kind: 'subject', subjectId }, 60, NOW);
      for (const i of [0, 1]) {
        for (const t of respelled(token, i)) {
          tried++;
          assertInvalid(await s.verify(t, NOW), 'the access token is malformed');
        }
      }
      assert.equal((await s.verify(token, NOW)).ok, true);
    }
    assert.ok(tried > 0, 'some header or payload had padding bits to vary');
  });

  it('a segment of an impossible length (4n+1 characters) is refused', async () => {
    const token = await service().mint({ kind: 'subject', subjectId: 's' }, 60, NOW);
    const [h, p, sig] = token.split('.') as [string, string, string];
    assert.equal((sig.length + 3) % 4, 1);
    assertInvalid(await service().verify(`${h}.${p}.${sig}AAA`, NOW), 'the access token is malformed');
  });
});
