import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { loadSigningKey } from '../../../src/auth/signing-keys.ts';
import { TokenService } from '../../../src/auth/tokens.ts';
import { importProfile } from '../../../src/operations/export-import/import-profile.ts';
import { createGrant } from '../../../src/operations/grants/consent-grants.ts';
import { demoProfile } from '../../../src/operations/seed/demo-profile.ts';
import { issueGrantToken, issueSubjectToken } from '../../../src/operations/tokens/issue-tokens.ts';
import {
  assertError,
  assertInvalidTokenChallenge,
  assertNoInternalId,
  keysOf,
} from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Attacks on consent: forged, foreign, expired and tampered tokens; a second subject's data and
// grants; revocation by someone who may not revoke.

const SUBJECT_2 = 'did:example:user-second-0002';

describe('HTTP consent attacks', () => {
  let p: TestProvider;
  let grantId: string;
  let token: string;

  before(async () => {
    p = await startTestProvider();
    ({
      grant: { grant_id: grantId },
      token,
    } = await p.grant({ allowed_operations: ['read', 'query', 'export'] }));
  });
  after(() => p.close());

  const summary = (t: string) => api(p.url, '/v1/profile/summary', { token: t });

  describe('forged and foreign tokens', () => {
    const claims = () => ({ ppx_kind: 'grant', grant_id: grantId, client_id: 'fragrance-demo' });

    it('the genuine token works (control)', async () => {
      assert.equal((await summary(token)).status, 200);
    });

    it('a token signed by another key is 401 invalid_token', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const base = p.deps.provider.baseUrl;
      const forged = await new SignJWT(claims())
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: p.deps.tokens.publicJwk.kid ?? 'k' })
        .setIssuer(base)
        .setAudience(base)
        .setSubject('fragrance-demo')
        .setJti('forged-1')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      assertInvalidTokenChallenge(await summary(forged), 'invalid_token');
    });

    it('a subject token signed by another key is 401 invalid_token', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const base = p.deps.provider.baseUrl;
      const forged = await new SignJWT({ ppx_kind: 'subject' })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
        .setIssuer(base)
        .setAudience(base)
        .setSubject(p.subjectId)
        .setJti('forged-2')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      assertInvalidTokenChallenge(
        await api(p.url, '/v1/export', { token: forged, body: {} }),
        'invalid_token',
      );
    });

    it('a token with another audience or issuer (real key) is 401 invalid_token', async () => {
      const key = await loadSigningKey(p.store);
      const base = p.deps.provider.baseUrl;
      for (const options of [
        { issuer: base, audience: 'https://elsewhere.example' },
        { issuer: 'https://evil.example', audience: base },
      ]) {
        const svc = new TokenService(key, { issuer: options.issuer });
        const grantSubject = { kind: 'grant', grantId, clientId: 'fragrance-demo' } as const;
        const t = await svc.mint(grantSubject, 600, new Date(), options.audience);
        assertInvalidTokenChallenge(await summary(t), 'invalid_token');
        const owner = { kind: 'subject', subjectId: p.subjectId } as const;
        const s = await svc.mint(owner, 600, new Date(), options.audience);
        assertInvalidTokenChallenge(await summary(s), 'invalid_token');
      }
      // the same key with the right issuer and audience works: the refusals above were about aud/iss
      const right = new TokenService(key, { issuer: base });
      const ok = await right.mint(
        { kind: 'grant', grantId, clientId: 'fragrance-demo' },
        600,
        new Date(),
        base,
      );
      assert.equal((await summary(ok)).status, 200);
    });

    it('an expired token (ttl elapsed) is 401 invalid_token', async () => {
      const twoHoursAgo = new Date(Date.now() - 7_200_000);
      const t = await p.deps.tokens.mint(
        { kind: 'grant', grantId, clientId: 'fragrance-demo' },
        60,
        twoHoursAgo,
        p.url,
      );
      assertInvalidTokenChallenge(await summary(t), 'invalid_token');
      const s = await p.deps.tokens.mint({ kind: 'subject', subjectId: p.subjectId }, 60, twoHoursAgo, p.url);
      assertInvalidTokenChallenge(await summary(s), 'invalid_token');
    });

    it('a tampered payload is 401 invalid_token', async () => {
      const [h, payload, sig] = token.split('.') as [string, string, string];
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const variants = [
        { ...decoded, grant_id: 'ppx:grant:someone-else' },
        { ...decoded, ppx_kind: 'subject', sub: p.subjectId },
        { ...decoded, exp: decoded.exp + 86_400 },
      ];
      for (const v of variants) {
        const tampered = `${h}.${Buffer.from(JSON.stringify(v)).toString('base64url')}.${sig}`;
        assertInvalidTokenChallenge(await summary(tampered), 'invalid_token');
      }
      // an unsigned token (alg none) is refused too
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
      assertInvalidTokenChallenge(await summary(none), 'invalid_token');
    });

    it('a genuine token naming the grant under another client is 401 invalid_token', async () => {
      const t = await p.deps.tokens.mint(
        { kind: 'grant', grantId, clientId: 'travel-demo' },
        600,
        new Date(),
        p.url,
      );
      assertInvalidTokenChallenge(await summary(t), 'invalid_token');
      const missing = await p.deps.tokens.mint(
        { kind: 'grant', grantId: 'ppx:grant:does-not-exist', clientId: 'fragrance-demo' },
        600,
        new Date(),
        p.url,
      );
      assertInvalidTokenChallenge(await summary(missing), 'invalid_token');
    });
  });

  describe('a second subject', () => {
    let s2Token: string;
    let s2Grant: { grant_id: string; token: string };

    before(async () => {
      const doc = demoProfile(new Date());
      const text = JSON.stringify({
        ...doc,
        subject_id: SUBJECT_2,
        profile_id: 'ppx:profile:second-0002',
      })
        .replaceAll('ppx:claim:demo-', 'ppx:claim:second-')
        .replaceAll('ppx:modifier:demo-', 'ppx:modifier:second-');
      const imported = await importProfile(p.deps, JSON.parse(text));
      assert.equal(imported.ok, true, JSON.stringify(imported));
      s2Token = (await issueSubjectToken(p.deps, SUBJECT_2)).access_token;
      const g = await createGrant(
        p.deps,
        {
          subject_id: SUBJECT_2,
          client_id: 'fragrance-demo',
          purposes: ['recommendation'],
          allowed_domains: ['fragrance'],
          allowed_namespaces: ['core', 'fragrance'],
          allowed_operations: ['read', 'query', 'export'],
        },
        'operator',
      );
      assert.ok(g.ok);
      s2Grant = { grant_id: g.value.grant_id, token: (await issueGrantToken(p.deps, g.value)).access_token };
    });

    it("subject 1's grant never returns subject 2's claims (and vice versa)", async () => {
      for (const [t, own, other] of [
        [token, 'ppx:claim:demo-', 'ppx:claim:second-'],
        [s2Grant.token, 'ppx:claim:second-', 'ppx:claim:demo-'],
      ] as const) {
        for (const r of [
          await summary(t),
          await api(p.url, '/v1/profile/query', { token: t, body: {} }),
          await api(p.url, '/v1/profile/effective', { token: t, body: {} }),
          await api(p.url, '/v1/export', { token: t, body: {} }),
        ]) {
          assert.equal(r.status, 200, r.text);
          assert.equal(r.json.claims.length, 14);
          for (const c of r.json.claims) assert.ok(c.claim_id.startsWith(own), c.claim_id);
          assert.ok(!r.text.includes(other), 'other subject leaked');
          assert.ok(!r.text.includes(SUBJECT_2));
          assertNoInternalId(r);
        }
      }
    });

    it('the same client sees the two subjects under different pairwise ids', async () => {
      const a = await summary(token);
      const b = await summary(s2Grant.token);
      assert.notEqual(a.json.subject_id, b.json.subject_id);
    });

    it("subject 1 cannot revoke subject 2's grant (404), which keeps working", async () => {
      const r = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: s2Grant.grant_id },
      });
      assertError(r, 404, 'not_found');
      assert.ok(!r.text.includes(SUBJECT_2));
      assert.equal((await summary(s2Grant.token)).status, 200);
      const list = await api(p.url, '/v1/consent/grants', { token: s2Token });
      const g = list.json.grants.find((x: { grant_id: string }) => x.grant_id === s2Grant.grant_id);
      assert.equal(g.status, 'active');
    });

    it("the answer for another subject's grant equals the answer for a grant that does not exist", async () => {
      const a = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: s2Grant.grant_id },
      });
      const b = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: 'ppx:grant:nope' },
      });
      assert.equal(a.status, b.status);
      assert.equal(a.json.error, b.json.error);
    });

    it("subject 1's grant list and audit never show subject 2's grants or events", async () => {
      const list = await api(p.url, '/v1/consent/grants', { token: p.subjectToken });
      assert.ok(!list.text.includes(s2Grant.grant_id));
      assert.ok(!list.text.includes(SUBJECT_2));
      const audit = await api(p.url, '/v1/audit/events?limit=500', { token: p.subjectToken });
      assert.ok(!audit.text.includes(s2Grant.grant_id));
      assert.ok(!audit.text.includes(SUBJECT_2));
      const byId = await api(p.url, `/v1/audit/events?grant_id=${encodeURIComponent(s2Grant.grant_id)}`, {
        token: p.subjectToken,
      });
      assert.equal(byId.status, 200);
      assert.deepEqual(byId.json.events, []);
    });

    it('the subject token of one subject does not read the other profile', async () => {
      const r = await api(p.url, '/v1/export', { token: s2Token, body: {} });
      assert.equal(r.status, 200);
      assert.equal(r.json.subject_id, SUBJECT_2);
      assert.deepEqual(keysOf(r.json).length, 20);
      for (const c of r.json.claims) assert.ok(c.claim_id.startsWith('ppx:claim:second-'));
    });
  });

  describe('grantees and revocation', () => {
    it('a grantee cannot revoke another grant (404), which keeps working', async () => {
      const a = await p.grant();
      const b = await p.grant({ client_id: 'travel-demo' });
      const c = await p.grant(); // same client as a, different grant
      for (const victim of [b, c]) {
        const r = await api(p.url, '/v1/consent/revoke', {
          token: a.token,
          body: { grant_id: victim.grant.grant_id },
        });
        assertError(r, 404, 'not_found');
        assert.equal((await summary(victim.token)).status, 200);
      }
    });

    it('a grantee can give up its own grant, effective on the next request', async () => {
      const a = await p.grant();
      const r = await api(p.url, '/v1/consent/revoke', {
        token: a.token,
        body: { grant_id: a.grant.grant_id },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.grant.status, 'revoked');
      assert.match(r.json.grant.subject_id, /^ppx:subject:/);
      assertNoInternalId(r);
      assertInvalidTokenChallenge(await summary(a.token), 'grant_revoked');
      // the subject sees it revoked
      const list = await api(p.url, '/v1/consent/grants', { token: p.subjectToken });
      const g = list.json.grants.find((x: { grant_id: string }) => x.grant_id === a.grant.grant_id);
      assert.equal(g.status, 'revoked');
      assert.equal(typeof g.revoked_at, 'string');
    });

    it('revoking twice keeps the first revoked_at', async () => {
      const a = await p.grant();
      const first = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: a.grant.grant_id },
      });
      const second = await api(p.url, '/v1/consent/revoke', {
        token: p.subjectToken,
        body: { grant_id: a.grant.grant_id },
      });
      assert.equal(first.status, 200);
      assert.equal(second.status, 200, second.text);
      assert.equal(second.json.grant.revoked_at, first.json.grant.revoked_at);
    });
  });
});
