import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Detail,
  FRAGRANCE,
  memberIds,
  openPackage,
  packageRequest,
  packageSuite,
  postDecision,
  subjectGrants,
  TRAVEL,
} from '../../../support/grant-packages.ts';
import { get, pkce, REDIRECT } from '../../../support/oauth-flow.ts';
import { api, type TestProvider } from '../../../support/provider.ts';

// Malformed packages are answered to the client; malformed decisions are refused on the page
// and decide nothing; a package member cannot be decided on its own.

describe('grant packages: refusals', () => {
  let p: TestProvider;
  let cookie: string;
  let client: string;
  packageSuite((s) => ({ p, cookie, client } = s));

  async function authorizeError(details: readonly Detail[]): Promise<URL> {
    const r = await get(packageRequest(p, client, pkce().challenge, details), cookie);
    assert.equal(r.status, 302, await r.text());
    const back = new URL(r.headers.get('location')!);
    assert.equal(
      `${back.origin}${back.pathname}`,
      REDIRECT,
      'the error goes back to the client, no consent page',
    );
    assert.equal(back.searchParams.get('state'), 'state-123');
    return back;
  }

  it('duplicate detail_ids, a missing detail_id or 11 elements: invalid_authorization_details', async () => {
    const cases: [string, Detail[], RegExp][] = [
      ['duplicate', [FRAGRANCE, { ...TRAVEL, detail_id: FRAGRANCE.detail_id }], /unique/],
      ['missing', [FRAGRANCE, { ...TRAVEL, detail_id: undefined }], /detail_id/],
      ['eleven', Array.from({ length: 11 }, (_, i) => ({ ...FRAGRANCE, detail_id: `d${i}` })), /at most 10/],
    ];
    for (const [name, details, why] of cases) {
      const back = await authorizeError(details);
      assert.equal(back.searchParams.get('error'), 'invalid_authorization_details', name);
      assert.match(back.searchParams.get('error_description') ?? '', why, name);
    }
    // Ten elements are still one package.
    const ten = Array.from({ length: 10 }, (_, i) => ({ ...FRAGRANCE, detail_id: `d${i}` }));
    const open = await openPackage(p, cookie, client, ten);
    assert.equal(memberIds(open.fields).length, 10);
    assert.match(open.html, /asks for 10 separate grants/);
  });

  async function assertPending(ids: readonly string[]) {
    for (const id of ids) assert.equal((await p.deps.store.getGrantRequest(id))?.status, 'pending', id);
  }

  it("a decision form without one element's choice is refused (400) and decides nothing", async () => {
    const grants = (await subjectGrants(p)).size;
    const open = await openPackage(p, cookie, client);
    open.fields.delete('e1.choice');
    open.fields.set('decision', 'decide');
    const r = await postDecision(open.action, cookie, open.fields);
    assert.equal(r.status, 400, r.html);
    assert.match(r.html, /role="alert">Grant 2 of 2: choose/);
    assert.match(r.html, /asks for 2 separate grants/, 'the package page again');
    await assertPending(memberIds(open.fields));
    assert.equal((await subjectGrants(p)).size, grants);
  });

  it('a decision naming a consent request of another package is refused (400); neither package is decided', async () => {
    const mine = await openPackage(p, cookie, client);
    const other = await openPackage(p, cookie, client);
    const foreign = memberIds(other.fields)[1]!;
    mine.fields.set('e1.request', foreign);
    mine.fields.set('decision', 'decide');
    const r = await postDecision(mine.action, cookie, mine.fields);
    assert.equal(r.status, 400, r.html);
    assert.match(r.html, /does not match the request, so nothing was decided/);
    await assertPending([...memberIds(mine.fields), ...memberIds(other.fields)]);
  });

  it('widening one element beyond what was asked is refused for that element (400); nothing is decided', async () => {
    const open = await openPackage(p, cookie, client);
    open.fields.append('e1.namespace', 'fragrance');
    open.fields.set('decision', 'decide');
    const r = await postDecision(open.action, cookie, open.fields);
    assert.equal(r.status, 400, r.html);
    assert.match(r.html, /role="alert">Grant 2 of 2: Which preferences: .*fragrance.* was not requested/);
    await assertPending(memberIds(open.fields));
  });

  it('unknown or missing decision values are refused and decide nothing', async () => {
    const open = await openPackage(p, cookie, client);
    for (const decision of ['approve', 'reject', '']) {
      open.fields.set('decision', decision);
      open.fields.set('e0.choice', 'approve');
      const r = await postDecision(open.action, cookie, open.fields);
      assert.equal(r.status, 400, `${decision}: ${r.html}`);
    }
    open.fields.set('decision', 'decide');
    open.fields.set('e0.choice', 'maybe');
    const r = await postDecision(open.action, cookie, open.fields);
    assert.equal(r.status, 400, r.html);
    await assertPending(memberIds(open.fields));
  });

  it('a package member cannot be approved or rejected on its own over the API (400)', async () => {
    const open = await openPackage(p, cookie, client);
    const [first] = memberIds(open.fields);
    const approve = await api(p.url, '/v1/consent/approve', {
      token: p.subjectToken,
      body: { grant_request_id: first },
    });
    assert.equal(approve.status, 400, approve.text);
    assert.equal(approve.json.error, 'invalid_request');
    assert.match(approve.json.error_description ?? approve.text, /package/);
    const reject = await api(p.url, '/v1/consent/reject', {
      token: p.subjectToken,
      body: { grant_request_id: first },
    });
    assert.equal(reject.status, 400, reject.text);
    await assertPending(memberIds(open.fields));
  });
});
