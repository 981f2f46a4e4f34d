import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { childId } from '../../../../src/operations/child-ids.ts';
import {
  decidePackage,
  FRAGRANCE,
  memberIds,
  openPackage,
  outcomeGrants,
  outcomePpxGrants,
  packageRequest,
  packageSuite,
  packageTokens,
  payload,
  postDecision,
  subjectGrants,
  TRAVEL,
} from '../../../support/grant-packages.ts';
import { codeFlow, get, pkce, REDIRECT } from '../../../support/oauth-flow.ts';
import { api, type TestProvider } from '../../../support/provider.ts';
import { cookieFrom, hiddenField } from '../../../support/web-session.ts';

// A grant package decided on one page and exchanged for one package token (WIRE-NOTES §4).

describe('grant packages: the consent page and the decision', () => {
  let p: TestProvider;
  let cookie: string;
  let client: string;
  packageSuite((s) => ({ p, cookie, client } = s));

  it("the page shows every element in order, in words, each with its own controls and an allow/don't allow choice", async () => {
    const { html, fields, consent } = await openPackage(p, cookie, client);
    assert.match(html, /asks for 2 separate grants; decide each one/);
    const fragrance = html.indexOf('data-detail-id="fragrance-reco"');
    const travel = html.indexOf('data-detail-id="travel-reco"');
    assert.ok(fragrance > 0 && travel > fragrance, 'both elements, in the order asked');
    assert.match(html, /Grant 1 of 2/);
    assert.match(html, /Grant 2 of 2/);
    const second = html.slice(travel);
    assert.match(html.slice(fragrance, travel), /Fragrance preferences/);
    assert.match(second, /Travel preferences/);
    assert.match(second, /General traits/);
    assert.match(html, /Recommend things to you/);
    assert.match(html, /Read the preferences shown below/);
    assert.match(html, /\(in 30 days\)/);
    assert.match(html, /It can suggest changes to your profile; nothing changes until you accept them/);
    assert.match(html, /What it would see/);
    assert.match(html, /data-provenance="user_stated"/, 'stated claims are marked');
    assert.match(html, /class="badge guess" data-provenance="(inferred|observed)"/, 'guesses are marked too');
    assert.match(html, /Allow this grant/);
    assert.match(html, /Don't allow/);
    // Every control is namespaced per element; both choices default to allow.
    assert.deepEqual(fields.getAll('e0.namespace'), ['core', 'fragrance']);
    assert.deepEqual(fields.getAll('e1.namespace'), ['core', 'travel']);
    assert.equal(fields.get('e0.choice'), 'approve');
    assert.equal(fields.get('e1.choice'), 'approve');
    assert.equal(fields.getAll('namespace').length, 0, 'no un-namespaced controls');
    const ids = memberIds(fields);
    assert.equal(ids.length, 2);
    assert.equal(consent.pathname, `/consent/${ids[0]}`, 'the browser is sent to the first element');
    // The second element's own address shows the same package.
    const other = await fetch(`${p.url}/consent/${ids[1]}`, { headers: { cookie } });
    assert.equal(other.status, 200);
    const otherHtml = await other.text();
    assert.match(otherHtml, /asks for 2 separate grants/);
    assert.match(otherHtml, /data-detail-id="fragrance-reco"/);
  });

  it('not signed in: sign-in brings the browser back to the authorization, even a ten-element one', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => ({ ...FRAGRANCE, detail_id: `d${i}` }));
    const authorize = packageRequest(p, client, pkce().challenge, ten);
    const gate = await get(authorize);
    assert.equal(gate.status, 302);
    const signin = new URL(gate.headers.get('location')!, p.url);
    assert.equal(signin.pathname, '/signin');
    const returnTo = signin.searchParams.get('return_to')!;
    assert.ok(returnTo.length > 2000, `a long return path (${returnTo.length})`);
    const form = await get(signin.href);
    const pre = cookieFrom(form, 'ppx_csrf')!;
    const html = await form.text();
    assert.equal(hiddenField(html, 'return_to')?.replace(/&amp;/g, '&'), returnTo, 'kept on the form');
    const posted = await fetch(`${p.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `ppx_csrf=${pre}` },
      body: new URLSearchParams({
        csrf: hiddenField(html, 'csrf')!,
        return_to: returnTo,
        username: 'demo-owner',
        password: 'a-long-enough-password',
      }),
    });
    assert.equal(posted.status, 303);
    assert.equal(posted.headers.get('location'), returnTo, 'back to the authorization request');
    const session = `ppx_session=${cookieFrom(posted, 'ppx_session')}`;
    const again = await get(new URL(returnTo, p.url).href, session);
    assert.equal(again.status, 302);
    assert.match(again.headers.get('location') ?? '', /^\/consent\/gr_/);
  });

  it('approve both: one code, a package token over both children, outcomes and authorization_details', async () => {
    const { back, tokens } = await packageTokens(p, cookie, client);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'state-123');
    assert.equal(back.searchParams.get('iss'), p.deps.provider.baseUrl);
    assert.equal(tokens.token_type, 'Bearer');
    assert.ok(tokens.refresh_token, 'a refresh token for the family');
    const claims = payload(tokens.access_token);
    assert.equal(claims.ppx_kind, 'package');
    assert.ok(claims.package_id);
    assert.equal(claims.grant_ids.length, 2);
    const outcomes = tokens.pdpp_detail_outcomes as { detail_id: string; grant_ids: string[] }[];
    assert.deepEqual(
      outcomes.map((o) => o.detail_id),
      ['fragrance-reco', 'travel-reco'],
    );
    for (const o of outcomes) assert.equal(o.grant_ids.length, 1, JSON.stringify(o));
    // Each granted element carries its own signed receipt, verifiable with the published keys.
    const jwks = createLocalJWKSet(
      (await (await fetch(`${p.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet,
    );
    for (const o of outcomes as { detail_id: string; consent_receipt?: string }[]) {
      assert.ok(o.consent_receipt, `${o.detail_id} has its receipt`);
      const { payload: body } = await compactVerify(o.consent_receipt, jwks);
      assert.equal(JSON.parse(new TextDecoder().decode(body)).decision, 'approved');
    }
    // The outcomes (and the top-level grant_ids) name the children by child id; the token's
    // claims and each authorization detail keep the PPX grant id of the same grants.
    assert.deepEqual([...claims.grant_ids].sort(), [...outcomePpxGrants(tokens)].sort());
    assert.deepEqual([...claims.grant_ids.map(childId)].sort(), [...outcomeGrants(tokens)].sort());
    assert.deepEqual([...tokens.grant_ids].sort(), [...outcomeGrants(tokens)].sort());
    const details = tokens.authorization_details as { detail_id: string; grant_id: string }[];
    assert.deepEqual(details.map((d) => d.detail_id).sort(), ['fragrance-reco', 'travel-reco']);
    assert.deepEqual(details.map((d) => d.grant_id).sort(), [...outcomePpxGrants(tokens)].sort());
    const grants = await subjectGrants(p);
    const [fragranceGrant, travelGrant] = outcomePpxGrants(tokens).map((id) => grants.get(id)!);
    assert.deepEqual(fragranceGrant?.allowed_domains, ['fragrance']);
    assert.deepEqual(travelGrant?.allowed_domains, ['travel']);
    assert.equal(fragranceGrant?.status, 'active');
  });

  it('approve one, decline the other: the declined detail has no grant, the token names one', async () => {
    const { tokens } = await packageTokens(p, cookie, client, [FRAGRANCE, TRAVEL], (f) =>
      f.set('e1.choice', 'reject'),
    );
    const outcomes = tokens.pdpp_detail_outcomes as { detail_id: string; grant_ids: string[] }[];
    assert.equal(outcomes.length, 2);
    assert.equal(outcomes[0]!.detail_id, 'fragrance-reco');
    assert.equal(outcomes[0]!.grant_ids.length, 1);
    assert.deepEqual(outcomes[1], { detail_id: 'travel-reco', grant_ids: [] });
    const claims = payload(tokens.access_token);
    assert.equal(claims.ppx_kind, 'package');
    assert.deepEqual(claims.grant_ids.map(childId), outcomes[0]!.grant_ids);
    assert.deepEqual(claims.grant_ids, outcomePpxGrants(tokens));
    assert.equal((tokens.authorization_details as unknown[]).length, 1);
  });

  it('decline all: access_denied back to the client, and nothing is granted', async () => {
    const before = (await subjectGrants(p)).size;
    const { back, fields } = await decidePackage(p, cookie, client, [FRAGRANCE, TRAVEL], (f) => {
      f.set('e0.choice', 'reject');
      f.set('e1.choice', 'reject');
    });
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('code'), null);
    assert.equal(back.searchParams.get('state'), 'state-123');
    assert.equal((await subjectGrants(p)).size, before, 'no new grant');
    for (const id of memberIds(fields)) {
      assert.equal((await p.deps.store.getGrantRequest(id))?.status, 'rejected');
    }
  });

  it('narrowing one element (a namespace unticked) applies to that child only', async () => {
    const { tokens } = await packageTokens(p, cookie, client, [FRAGRANCE, TRAVEL], (f) =>
      f.delete('e0.namespace', 'fragrance'),
    );
    const grants = await subjectGrants(p);
    const [fragranceId, travelId] = outcomePpxGrants(tokens);
    assert.deepEqual(grants.get(fragranceId!)?.allowed_namespaces, ['core']);
    assert.deepEqual(grants.get(travelId!)?.allowed_namespaces, ['core', 'travel']);
    const details = tokens.authorization_details as { detail_id: string; allowed_namespaces: string[] }[];
    const fragrance = details.find((d) => d.detail_id === 'fragrance-reco');
    assert.deepEqual(fragrance?.allowed_namespaces, ['core']);
  });

  it('preview narrows what one element would see and keeps every choice on the page', async () => {
    const open = await openPackage(p, cookie, client);
    const rows = (html: string, detail: string) => {
      const start = html.indexOf(`data-detail-id="${detail}"`);
      const end = html.indexOf('</section>\n<section class="element"', start);
      return [...html.slice(start, end < 0 ? undefined : end).matchAll(/<tr data-key="([^"]+)"/g)].map(
        (m) => m[1]!,
      );
    };
    const asked = rows(open.html, 'fragrance-reco');
    assert.ok(
      asked.some((k) => k.startsWith('fragrance.')),
      asked.join(),
    );
    open.fields.delete('e0.namespace', 'fragrance');
    open.fields.set('e1.choice', 'reject');
    open.fields.set('decision', 'preview');
    const shown = await postDecision(open.action, cookie, open.fields);
    assert.equal(shown.status, 200, shown.html);
    const narrowed = rows(shown.html, 'fragrance-reco');
    assert.ok(narrowed.length > 0 && narrowed.every((k) => !k.startsWith('fragrance.')), narrowed.join());
    assert.match(shown.html, /name="e0\.namespace" value="fragrance">/, 'the unticked box stays unticked');
    assert.match(shown.html, /name="e1\.choice" value="reject" checked>/, 'the choice is kept');
    for (const id of memberIds(open.fields)) {
      assert.equal((await p.deps.store.getGrantRequest(id))?.status, 'pending', 'a preview decides nothing');
    }
  });

  it('the package token is refused on the PPX HTTP endpoints (401 invalid_token); a grant token is not', async () => {
    const { tokens } = await packageTokens(p, cookie, client);
    const refused = await api(p.url, '/v1/profile/summary', { token: tokens.access_token });
    assert.equal(refused.status, 401, refused.text);
    assert.equal(refused.json.error, 'invalid_token');
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);
    // The control: one element is an ordinary grant token for the same resource, accepted.
    const single = await codeFlow(p, cookie, client, {
      authorization_details: JSON.stringify([FRAGRANCE]),
      resource: p.deps.provider.baseUrl,
    });
    assert.equal(single.tokens.status, 200, single.tokens.text);
    assert.notEqual(payload(single.tokens.json.access_token).ppx_kind, 'package');
    const read = await api(p.url, '/v1/profile/summary', { token: single.tokens.json.access_token });
    assert.equal(read.status, 200, read.text);
  });
});
