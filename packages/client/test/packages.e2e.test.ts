import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decisionForm, postDecision, subjectGrants } from '../../../test/support/grant-packages.ts';
import { get, publicClient, REDIRECT, signedInCookie } from '../../../test/support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../test/support/provider.ts';
import {
  discover,
  exchangePackageCode,
  GrantPackage,
  lookup,
  type PackageElement,
  PpxClient,
  packageAuthorizationUrl,
} from '../src/index.ts';

// Grant packages through the library (WIRE-NOTES §4): one authorization with two `ppx_grant`
// elements, the person deciding each on the one consent page, the package token with each
// element's outcome, reads of each child over MCP, a withdrawn child, refresh, and the disconnect.

const element = (detailId: string, domain: string): PackageElement => ({
  detail_id: detailId,
  purposes: ['recommendation'],
  allowed_domains: [domain],
  allowed_namespaces: ['core', domain],
  allowed_operations: ['read', 'query'],
});
const ELEMENTS = [element('fragrance-reco', 'fragrance'), element('travel-reco', 'travel')];

describe('@ppx-provider/client: grant packages', () => {
  let p: TestProvider;
  let cookie: string;
  let clientId: string;
  before(async () => {
    p = await startTestProvider();
    cookie = await signedInCookie(p);
    clientId = await publicClient(p);
  });
  after(() => p.close());

  async function client() {
    const provider = await discover(p.url);
    assert.ok(provider.ok);
    return new PpxClient(provider.value, { clientId });
  }

  /** The person's part, as a browser does it: the package page, each element decided, confirmed. */
  async function decide(url: string, edit: (fields: URLSearchParams) => void = () => undefined) {
    const a = await get(url, cookie);
    assert.equal(a.status, 302, await a.text());
    const consent = new URL(a.headers.get('location')!, p.url);
    const page = await get(consent.href, cookie);
    const html = await page.text();
    assert.equal(page.status, 200, html);
    const { action, fields } = decisionForm(html, consent);
    edit(fields);
    fields.set('decision', 'decide');
    const posted = await postDecision(action, cookie, fields);
    assert.equal(posted.status, 303, posted.html);
    return posted.location!;
  }

  async function granted(c: PpxClient, edit?: (fields: URLSearchParams) => void) {
    const pending = await packageAuthorizationUrl(c, { redirectUri: REDIRECT, elements: ELEMENTS });
    assert.ok(pending.ok, JSON.stringify(pending));
    const pkg = await exchangePackageCode(c, await decide(pending.value.url, edit), pending.value);
    assert.ok(pkg.ok, JSON.stringify(pkg));
    return pkg.value;
  }

  it('asks for two elements, gets one package token with each outcome, reads each child over MCP', async () => {
    const c = await client();
    const pkg = await granted(c);
    assert.deepEqual(
      pkg.outcomes.map((o) => [o.detailId, o.grantIds.length, typeof o.consentReceipt]),
      [
        ['fragrance-reco', 1, 'string'],
        ['travel-reco', 1, 'string'],
      ],
    );
    const [fragrance, travel] = pkg.outcomes.map((o) => o.grantIds[0]!);
    assert.match(pkg.key, /^package:/);
    const bundle = new GrantPackage(c, pkg.key);
    assert.deepEqual([...(await bundle.children())].sort(), [fragrance, travel].sort());

    const effective = await bundle.effective(fragrance!, { occasion: 'office' });
    assert.ok(effective.ok, JSON.stringify(effective));
    assert.ok(effective.value.claims.length > 0);
    assert.ok(effective.value.claims.every((cl) => cl.namespace === 'core' || cl.namespace === 'fragrance'));
    assert.equal(lookup(effective.value, 'travel.seat_preference').state, 'not_granted');
    const query = await bundle.query(travel!, { requested_namespaces: ['travel'] });
    assert.ok(query.ok, JSON.stringify(query));
    assert.ok(query.value.claims.every((cl) => cl.namespace === 'travel'));
    const summary = await bundle.summary(travel!);
    assert.ok(summary.ok, JSON.stringify(summary));

    // The HTTP API refuses a package token: its endpoints name no grant (docs/oauth.md).
    const tokens = await c.store.get(pkg.key);
    const http = await api(p.url, '/v1/profile/summary', { token: tokens!.accessToken });
    assert.equal(http.status, 401);
  });

  it('an element the person declines has no grant; the package holds the other', async () => {
    const c = await client();
    const pkg = await granted(c, (fields) => fields.set('e1.choice', 'reject'));
    assert.deepEqual(
      pkg.outcomes.map((o) => [o.detailId, o.grantIds.length]),
      [
        ['fragrance-reco', 1],
        ['travel-reco', 0],
      ],
    );
    assert.equal(pkg.outcomes[1]!.consentReceipt, undefined);
  });

  it('a child the person withdraws reads as package_child_inactive; the other goes on, through a refresh', async () => {
    const c = await client();
    const pkg = await granted(c);
    const [fragrance, travel] = pkg.outcomes.map((o) => o.grantIds[0]!);
    const withdrawn = await api(p.url, '/v1/consent/revoke', {
      token: p.subjectToken,
      body: { grant_id: `ppx:grant:${travel}` },
    });
    assert.equal(withdrawn.status, 200, withdrawn.text);
    const bundle = new GrantPackage(c, pkg.key);
    const ended = await bundle.summary(travel!);
    assert.equal(!ended.ok && ended.error.code, 'package_child_inactive', JSON.stringify(ended));
    const fresh = await c.refresh(pkg.key);
    assert.ok(fresh.ok, JSON.stringify(fresh));
    assert.notEqual(fresh.value.refreshToken, pkg.tokens.refreshToken);
    assert.equal(fresh.value.grantId, pkg.key, 'a refreshed package keeps its key');
    assert.ok((await bundle.effective(fragrance!)).ok);
  });

  it('disconnect ends every child and forgets the package', async () => {
    const c = await client();
    const pkg = await granted(c);
    const ids = pkg.outcomes.map((o) => `ppx:grant:${o.grantIds[0]}`);
    const bundle = new GrantPackage(c, pkg.key);
    assert.deepEqual(await bundle.disconnect(), { ok: true, value: undefined });
    const grants = await subjectGrants(p);
    assert.deepEqual(
      ids.map((id) => grants.get(id)?.status),
      ['revoked', 'revoked'],
    );
    assert.equal(await c.store.get(pkg.key), undefined);
    const after = await bundle.summary(pkg.outcomes[0]!.grantIds[0]!);
    assert.equal(!after.ok && after.error.code, 'not_found');
  });

  it('a package of one element is refused before anything is sent (one is an ordinary grant)', async () => {
    const c = await client();
    const r = await packageAuthorizationUrl(c, { redirectUri: REDIRECT, elements: [ELEMENTS[0]!] });
    assert.equal(!r.ok && r.error.code, 'invalid_request');
  });
});
