import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { sha256 } from '../../../../src/auth/secrets.ts';
import { createSubject } from '../../../../src/operations/accounts/subjects-and-sessions.ts';
import {
  ask,
  assertInvalidGrant,
  exchange,
  grantsOf,
  pkce,
  requestBody,
} from '../../../support/consent-flow.ts';
import { assertError, assertInvalidTokenChallenge } from '../../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { signInOverHttp } from '../../../support/web-session.ts';

// POST /v1/consent/request (WIRE-NOTES §2.1): registered clients only, exact redirect URIs,
// PKCE S256 only, strict bodies; and a pending request carries no authority at all.

describe('consent request over HTTP', () => {
  let p: TestProvider;
  let grantsBefore: number;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());
  beforeEach(async () => {
    grantsBefore = (await grantsOf(p)).length;
  });
  afterEach(async () => {
    assert.equal((await grantsOf(p)).length, grantsBefore, 'a refused request granted something');
    // Each test starts with nothing pending: an app may have only a few requests waiting at once
    // (issue 22 item 10), and these tests ask many times, never answering.
    for (const r of await p.store.listPendingGrantRequestsBySubject(p.subjectId, new Date().toISOString())) {
      await p.store.transitionGrantRequest(r.grant_request_id, 'pending', { status: 'rejected' });
    }
  });

  /** Sends the genuine body changed by `over` (`undefined` drops a field). */
  function send(over: Record<string, unknown>) {
    const body: Record<string, unknown> = requestBody(p, pkce().challenge, over);
    for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
    return api(p.url, '/v1/consent/request', { body });
  }

  it('the genuine request is 201 (control for every case below)', async () => {
    const r = await send({});
    assert.equal(r.status, 201, r.text);
  });

  it('an unknown client is 404 unknown_client', async () => {
    assertError(await send({ client_id: 'no-such-client' }), 404, 'unknown_client');
  });

  describe('redirect_uri must match a registered one exactly', () => {
    for (const [name, uri] of [
      ['a trailing slash', 'http://localhost:5173/callback/'],
      ['another port', 'http://localhost:5174/callback'],
      ['another host', 'http://127.0.0.1:5173/callback'],
      ['another scheme', 'https://localhost:5173/callback'],
      ['an added query', 'http://localhost:5173/callback?x=1'],
      ['another path', 'http://localhost:5173/callback2'],
    ] as const) {
      it(`${name} is 400 invalid_redirect_uri`, async () => {
        assertError(await send({ redirect_uri: uri }), 400, 'invalid_redirect_uri');
      });
    }

    it("another client's registered redirect URI is 400", async () => {
      assertError(
        await send({ client_id: 'travel-demo', redirect_uri: 'http://localhost:5173/callback' }),
        400,
        'invalid_redirect_uri',
      );
    });
  });

  describe('PKCE S256 only', () => {
    it('a missing code_challenge is 400', async () => {
      assertError(await send({ code_challenge: undefined }), 400, 'invalid_request');
    });

    it('method plain is 400 (even with a plain-looking challenge)', async () => {
      const { verifier } = pkce();
      assertError(
        await send({ code_challenge_method: 'plain', code_challenge: verifier }),
        400,
        'invalid_request',
      );
      assertError(await send({ code_challenge_method: 'plain' }), 400, 'invalid_request');
    });

    it('a missing method is 400', async () => {
      assertError(await send({ code_challenge_method: undefined }), 400, 'invalid_request');
    });

    it('a lower-case s256 method is 400', async () => {
      assertError(await send({ code_challenge_method: 's256' }), 400, 'invalid_request');
    });

    it('a challenge that is not a base64url SHA-256 is 400', async () => {
      assertError(await send({ code_challenge: 'short' }), 400, 'invalid_request');
    });
  });

  describe('strict bodies', () => {
    it('malformed JSON is 400 invalid_request', async () => {
      const r = await api(p.url, '/v1/consent/request', { body: '{"client_id": "fragrance-demo",' });
      assertError(r, 400, 'invalid_request');
    });

    it('an unknown field is 400 invalid_request', async () => {
      assertError(await send({ scope: 'everything' }), 400, 'invalid_request');
    });

    for (const [field, value] of [
      ['client_id', 42],
      ['purposes', 'recommendation'],
      ['allowed_namespaces', 'core'],
      ['allowed_operations', ['read', 'delete_everything']],
      ['requested_duration_days', '30'],
      ['requested_duration_days', 10_000],
      ['redirect_uri', 'not a url'],
      ['code_challenge', 12345],
      ['access_mode', 'forever'],
    ] as const) {
      it(`${field}: ${JSON.stringify(value)} is 400 invalid_request`, async () => {
        assertError(await send({ [field]: value }), 400, 'invalid_request');
      });
    }

    it('a missing required field is 400 invalid_request', async () => {
      assertError(await send({ subject_id: undefined }), 400, 'invalid_request');
    });

    it('a JSON array or a non-JSON body is refused', async () => {
      assertError(await api(p.url, '/v1/consent/request', { body: '[]' }), 400, 'invalid_request');
      assertError(
        await api(p.url, '/v1/consent/request', {
          body: 'client_id=fragrance-demo',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
        'unsupported_media_type',
      );
    });
  });

  it('an unknown namespace is 400 unknown_namespace', async () => {
    assertError(await send({ allowed_namespaces: ['core', 'astrology'] }), 400, 'unknown_namespace');
  });

  it('a claim key no namespace registers is 400, named, and nothing is asked of the person', async () => {
    const r = await send({
      allowed_namespaces: ['core', 'fragrance'],
      allowed_claim_keys: ['novelty_tolerance', 'fragrance.bank_balance', 'core.home_address'],
    });
    assertError(r, 400, 'invalid_request');
    assert.match(r.json.error_description, /"fragrance\.bank_balance", "core\.home_address"/);
    assert.match(r.json.error_description, /\/v1\/extensions/);
  });

  it('a claim key outside the requested namespaces is 400', async () => {
    assertError(
      await send({ allowed_namespaces: ['core'], allowed_claim_keys: ['fragrance.family_preference'] }),
      400,
      'invalid_request',
    );
  });

  it('request_token is returned once and stored only as its hash', async () => {
    const pending = await ask(p);
    const stored = await p.deps.store.getGrantRequest(pending.id);
    assert.ok(stored, 'the request was not stored');
    assert.equal(stored.request_token_hash, sha256(pending.requestToken));
    // Not merely hashed in one field: no field of the record (draft, oauth facts, ...) keeps it.
    assert.ok(!JSON.stringify(stored).includes(pending.requestToken), 'the plaintext token is stored');
    // Nor is it shown again: the consent page, to a stranger (sign-in form) or to the subject.
    const user = { username: 'request-token-user', password: 'request-token-password-1' };
    assert.ok((await createSubject(p.deps, { ...user, subject_id: p.subjectId })).ok);
    const { session } = await signInOverHttp(p.url, user.username, user.password);
    for (const cookie of ['', `ppx_session=${session}`]) {
      const page = await fetch(`${p.url}/consent/${pending.id}`, { headers: { cookie } });
      assert.equal(page.status, 200);
      const html = await page.text();
      // control: the signed-in page is the consent page for this request, not some other page
      if (cookie) assert.ok(html.includes(`/consent/${pending.id}/decision`), 'not the consent page');
      assert.ok(!html.includes(pending.requestToken), `the token is in the page (signed in: ${!!cookie})`);
    }
  });

  describe('a pending request carries no authority', () => {
    it('the request token is not a bearer token', async () => {
      const pending = await ask(p);
      for (const path of ['/v1/profile/summary', '/v1/consent/grants']) {
        assertInvalidTokenChallenge(await api(p.url, path, { token: pending.requestToken }), 'invalid_token');
      }
      assertInvalidTokenChallenge(
        await api(p.url, '/v1/profile/effective', { token: pending.requestToken, body: {} }),
        'invalid_token',
      );
      // nor does it let its holder decide
      assertInvalidTokenChallenge(
        await api(p.url, '/v1/consent/approve', {
          token: pending.requestToken,
          body: { grant_request_id: pending.id },
        }),
        'invalid_token',
      );
    });

    it('the grant request id is not a bearer token either', async () => {
      const pending = await ask(p);
      assertInvalidTokenChallenge(
        await api(p.url, '/v1/profile/summary', { token: pending.id }),
        'invalid_token',
      );
    });

    it('an exchange before approval is invalid_grant, and keeps failing', async () => {
      const pending = await ask(p);
      assertInvalidGrant(await exchange(p, pending));
      assertInvalidGrant(await exchange(p, pending));
    });
  });
});
