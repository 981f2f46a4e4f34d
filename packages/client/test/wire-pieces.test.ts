import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { DpopKey } from '../src/dpop.ts';
import {
  createPkce,
  decisionFromRedirect,
  MemoryTokenStore,
  type PendingGrant,
  PpxClient,
  type Provider,
  type StoredTokens,
} from '../src/index.ts';

// The pieces of the client library that need no provider: PKCE, DPoP proofs, the token store, the
// redirect's decision, the single in-flight refresh and the end of an access, over a fake fetch.

const pending: PendingGrant = {
  grantRequestId: 'gr_1',
  consentUrl: 'https://p.example/consent/gr_1',
  requestToken: 'rt',
  codeVerifier: 'v',
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
};

const provider = { baseUrl: 'https://p.example', card: {} as never, dpop: false } satisfies Provider;

describe('client pieces', () => {
  it('PKCE: a 43-character verifier and its S256 challenge', async () => {
    const p = await createPkce();
    assert.match(p.verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(p.challenge, createHash('sha256').update(p.verifier).digest('base64url'));
    assert.equal(p.method, 'S256');
  });

  it('DPoP: an ES256 proof with htm, htu (no query), ath, verifiable with its own jwk; the RFC 7638 thumbprint', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof('post', 'https://p.example/v1/profile/effective?x=1', 'token-1');
    const header = decodeProtectedHeader(proof);
    assert.equal(header.typ, 'dpop+jwt');
    assert.equal(header.alg, 'ES256');
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk as never, 'ES256'));
    assert.equal(payload['htm'], 'POST');
    assert.equal(payload['htu'], 'https://p.example/v1/profile/effective');
    assert.equal(payload['ath'], createHash('sha256').update('token-1').digest('base64url'));
    assert.equal(await key.thumbprint(), await calculateJwkThumbprint(header.jwk as never));
  });

  it('DPoP: a nonce given by an origin goes into the next proof for it', async () => {
    const key = await DpopKey.generate();
    assert.equal(key.remember('https://p.example/x', new Headers({ 'dpop-nonce': 'n1' })), true);
    assert.equal(key.remember('https://p.example/y', new Headers({ 'dpop-nonce': 'n1' })), false);
    const { payload } = await jwtVerify(
      await key.proof('GET', 'https://p.example/z'),
      await importJWK(
        decodeProtectedHeader(await key.proof('GET', 'https://p.example/z')).jwk as never,
        'ES256',
      ),
    );
    assert.equal(payload['nonce'], 'n1');
  });

  it('the redirect says the decision, and only for its own request', () => {
    assert.deepEqual(decisionFromRedirect('http://app/cb?grant_request_id=gr_1&decision=approve', pending), {
      ok: true,
      value: 'approve',
    });
    const other = decisionFromRedirect('http://app/cb?grant_request_id=gr_2&decision=approve', pending);
    assert.equal(!other.ok && other.error.code, 'state_mismatch');
  });

  it('one refresh at a time; a 410 ends the access as grant_revoked and drops the tokens', async () => {
    let calls = 0;
    let answer: () => Response = () =>
      Response.json({
        access_token: 'a2',
        token_type: 'Bearer',
        expires_in: 900,
        grant_id: 'g1',
        refresh_token: 'r2',
      });
    const fetcher = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      return answer();
    };
    const store = new MemoryTokenStore();
    const t: StoredTokens = {
      grantId: 'g1',
      accessToken: 'a1',
      tokenType: 'Bearer',
      expiresAt: 0,
      refreshToken: 'r1',
      via: 'consent',
    };
    await store.set(t);
    const c = new PpxClient(provider, { clientId: 'app', store, fetch: fetcher });
    const [a, b] = await Promise.all([c.tokens('g1'), c.refresh('g1')]);
    assert.equal(calls, 1);
    assert.ok(a.ok && b.ok);
    assert.equal((await store.get('g1'))?.refreshToken, 'r2');

    answer = () =>
      Response.json(
        { error: 'grant_gone', error_description: 'the person ended this access' },
        { status: 410 },
      );
    const ended = await c.refresh('g1');
    assert.deepEqual(ended, {
      ok: false,
      error: {
        code: 'grant_revoked',
        description: 'the person ended this access',
        status: 410,
        grantId: 'g1',
      },
    });
    assert.equal(await store.get('g1'), undefined);
  });

  it('an expired access is grant_expired; a network failure is a value, never a throw', async () => {
    const store = new MemoryTokenStore();
    await store.set({
      grantId: 'g1',
      accessToken: 'a',
      tokenType: 'Bearer',
      expiresAt: 0,
      refreshToken: 'r',
      via: 'consent',
    });
    const expired = new PpxClient(provider, {
      clientId: 'app',
      store,
      fetch: async () =>
        Response.json(
          { error: 'invalid_grant', error_description: 'this access has expired' },
          { status: 400 },
        ),
    });
    const r = await expired.refresh('g1');
    assert.equal(!r.ok && r.error.code, 'grant_expired');

    await store.set({
      grantId: 'g2',
      accessToken: 'a',
      tokenType: 'Bearer',
      expiresAt: 0,
      refreshToken: 'r',
      via: 'consent',
    });
    const offline = new PpxClient(provider, {
      clientId: 'app',
      store,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const n = await offline.refresh('g2');
    assert.equal(!n.ok && n.error.code, 'network_error');
    assert.ok(await store.get('g2'), 'a network failure ends nothing');
  });
});
