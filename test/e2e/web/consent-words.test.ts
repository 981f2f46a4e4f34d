import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { requestConsent, signedInForms, signInOverHttp } from '../../support/web-session.ts';

// The consent pages' words, over plain HTTP: what a person reads, not what the specification
// says. The layout at phone width is checked in Chromium (consent-browser.test.ts).

const USER = { username: 'words-user', password: 'words-password-1' };
const OTHER = { username: 'words-other', password: 'words-password-2' };

/** Roughly what a person reads: the page's main part without tags, entities decoded. */
function shownText(page: string): string {
  const main = /<main>([\s\S]*)<\/main>/.exec(page)?.[1] ?? '';
  return main
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

describe('consent pages in plain words', () => {
  let p: TestProvider;
  let session: string;
  let csrf: string;
  let otherSubject: string;
  before(async () => {
    p = await startTestProvider();
    assert.ok((await createSubject(p.deps, { ...USER, subject_id: DEMO_SUBJECT })).ok);
    const other = await createSubject(p.deps, OTHER);
    assert.ok(other.ok);
    otherSubject = other.value.subject_id;
    ({ session, csrf } = await signInOverHttp(p.url, USER.username, USER.password));
  });
  after(() => p.close());

  const { get, post, status } = signedInForms(
    () => p,
    () => session,
  );

  it('keys and values in plain words: labels, no spec prose, no key names, no JSON', async () => {
    const req = await requestConsent(p, {
      allowed_domains: ['fragrance', 'travel'],
      allowed_namespaces: ['core', 'fragrance', 'travel'],
    });
    const page = await (await get(`/consent/${req.grant_request_id}`)).text();
    const text = shownText(page);
    assert.doesNotMatch(text, /\b(MUST|SHOULD|MAY|NOT)\b/, 'no specification keywords');
    assert.doesNotMatch(text, /Values in|\[0\.0|0\.0 =|1\.0 =/, 'no value ranges in spec notation');
    assert.doesNotMatch(text, /[{}[\]]|"\w+":/, 'no JSON');
    const snake = text.match(/\b[a-z]+(_[a-z0-9]+)+\b/g);
    assert.equal(snake, null, `no key names on show: ${snake}`);
    assert.match(text, /Scent families you like/, 'a key by its label');
    assert.match(text, /Trying new things/);
    assert.match(text, /Whether you prefer familiar things \(low\) or new ones \(high\)\./);
    const values = [...page.matchAll(/<tr data-key="([^"]+)"><td>.*?<\/td><td>(.*?)<\/td>/g)];
    assert.ok(values.length >= 5, `${values.length} rows`);
    const byKey = new Map(values.map((m) => [m[1]!, m[2]!]));
    assert.match(byKey.get('novelty_tolerance') ?? '', /^(Very low|Low|Medium|High|Very high) \(\d{1,3}%\)$/);
    assert.match(
      byKey.get('fragrance.family_preference') ?? '',
      /^[A-Z][a-z]+ \d{1,3}%, /,
      'a map as its top entries',
    );
    const list = byKey.get('fragrance.note_aversions');
    if (list !== undefined) assert.match(list, /^[A-Z][\w ]*(, [A-Z][\w ]*)*$/, 'a list as a comma list');
  });

  it('every group of boxes is a fieldset named by its legend', async () => {
    const req = await requestConsent(p);
    const page = await (await get(`/consent/${req.grant_request_id}`)).text();
    for (const title of [
      'What for',
      'In which areas of life',
      'Which preferences',
      'What it may do with them',
    ]) {
      assert.ok(page.includes(`<fieldset class="group"><legend><h2>${title}</h2></legend>`), title);
    }
    assert.match(
      page,
      /<fieldset class="keys"><legend><label><input type="checkbox" name="namespace" value="fragrance"/,
    );
    // Every checkbox sits inside a fieldset (counted by open and close tags before it).
    let open = 0;
    let boxes = 0;
    for (const m of page.matchAll(/<(\/?)fieldset\b|<input type="checkbox"/g)) {
      if (m[0].startsWith('<input')) {
        boxes++;
        assert.ok(open > 0, `checkbox ${boxes} is outside any fieldset`);
      } else open += m[1] ? -1 : 1;
    }
    assert.ok(boxes > 10, `${boxes} boxes`);
  });

  it('a choice with one option is plain text, its value in a hidden input, and the form still works', async () => {
    const req = await requestConsent(p, {
      cross_domain_transfer: 'deny',
      writeback_policy: 'forbidden',
      requested_duration_days: 1,
    });
    const page = await (await get(`/consent/${req.grant_request_id}`)).text();
    assert.doesNotMatch(page, /<select/, 'no select that offers nothing to choose');
    assert.match(page, /<input type="hidden" name="cross_domain_transfer" value="deny">/);
    assert.match(page, /<input type="hidden" name="writeback_policy" value="forbidden">/);
    assert.match(page, /<input type="hidden" name="duration" value="">/);
    const text = shownText(page);
    assert.match(
      text,
      /Where it may use them\s+Only in the areas of life above \(as asked\)\s+Nothing is stricter than this\./,
    );
    assert.match(
      text,
      /Changes to your profile\s+It cannot change your profile, not even suggest a change \(as asked\)/,
    );
    assert.match(text, /It cannot be made shorter\./);
    const form: [string, string][] = [
      ...page.matchAll(/<input type="(?:hidden|checkbox)" name="([^"]+)" value="([^"]*)"/g),
    ].map((m) => [m[1]!, m[2]!]);
    // The page's CSRF field appears twice (the sign-out form too); a form sends one.
    const approved = await post(`/consent/${req.grant_request_id}/decision`, [
      ...form.filter(([n]) => n !== 'csrf'),
      ['csrf', csrf],
      ['decision', 'approve'],
    ]);
    assert.equal(approved.status, 303, /<p>[^<]*/.exec(await approved.text())?.[0]);
    assert.equal(await status(req.grant_request_id), 'approved');
  });

  it('a choice with several options stays a select', async () => {
    const req = await requestConsent(p);
    const page = await (await get(`/consent/${req.grant_request_id}`)).text();
    assert.match(page, /<select id="cross_domain_transfer" name="cross_domain_transfer">/);
    assert.match(page, /<select id="duration" name="duration">/);
  });

  it('the sign-in page names the app that is asking, and only that', async () => {
    const req = await requestConsent(p);
    const signIn = shownText(await (await fetch(`${p.url}/consent/${req.grant_request_id}`)).text());
    assert.match(signIn, /Fragrance Demo App is asking to use your preferences\. Sign in/);
    assert.doesNotMatch(signIn, /Recommend|fragrance preferences|30 days/i, 'nothing of the request itself');
    const none = shownText(await (await fetch(`${p.url}/consent/gr_doesnotexist0000000000`)).text());
    assert.match(none, /An app is asking to use your preferences\. Sign in/);
    assert.doesNotMatch(none, /Fragrance Demo App/);
  });

  it('the sign-in page on the way to an OAuth authorization names the app, self-registered ones as such', async () => {
    const reg = await api(p.url, '/oauth/register', {
      body: {
        client_name: 'Helpful Bot',
        redirect_uris: ['https://bot.example/cb'],
        token_endpoint_auth_method: 'none',
      },
    });
    assert.equal(reg.status, 201, reg.text);
    const authorize = (clientId: string) =>
      `/oauth/authorize?response_type=code&client_id=${encodeURIComponent(clientId)}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`;
    const first = await fetch(p.url + authorize(reg.json.client_id), { redirect: 'manual' });
    assert.equal(first.status, 302);
    const signIn = shownText(await (await fetch(p.url + first.headers.get('location')!)).text());
    assert.match(
      signIn,
      /An app that calls itself “Helpful Bot” at bot\.example is asking to use your preferences/,
    );
    const operator = await fetch(
      p.url +
        (await fetch(p.url + authorize('fragrance-demo'), { redirect: 'manual' })).headers.get('location')!,
    );
    assert.match(shownText(await operator.text()), /Fragrance Demo App is asking to use your preferences/);
  });

  it('a request that does not exist and another account’s request read the same', async () => {
    const theirs = await requestConsent(p, { subject_id: otherSubject });
    const missing = await get('/consent/gr_doesnotexist0000000000');
    const foreign = await get(`/consent/${theirs.grant_request_id}`);
    assert.equal(missing.status, 404);
    assert.equal(foreign.status, 404);
    const [a, b] = [await missing.text(), await foreign.text()];
    assert.match(a, /This request does not exist or has expired/);
    assert.doesNotMatch(a, /for another account</);
    assert.equal(a, b, 'byte for byte the same page: nothing tells that the id is in use');
  });
});
