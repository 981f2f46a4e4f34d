import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approve, ask, exchange, grantsOf, readEffective } from '../../../support/consent-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// A client never learns a subject's internal id, only its pairwise id (docs/policy.md). When it
// asks for consent again (after a revocation, or for more), it names the subject by that id. Only
// the pairwise id this client was shown works; another client's, or a made-up one, makes a
// request no subject can approve, and the request's answer does not tell which case it was.

describe('consent request naming the subject by its pairwise id', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  /** request → approve → exchange; returns the access token. */
  async function grantVia(subjectId: string): Promise<string> {
    const pending = await ask(p, { subject_id: subjectId });
    const approved = await approve(p, pending.id);
    assert.equal(approved.status, 200, approved.text);
    const token = await exchange(p, pending);
    assert.equal(token.status, 200, token.text);
    return token.json.access_token;
  }

  it('asks again by the pairwise id it was shown; the subject approves; the grant reads', async () => {
    const first = await grantVia(p.subjectId);
    const read = await readEffective(p, first);
    assert.equal(read.status, 200, read.text);
    const pairwise: string = read.json.subject_id;
    assert.match(pairwise, /^ppx:subject:/);
    assert.notEqual(pairwise, p.subjectId);

    const again = await grantVia(pairwise);
    const second = await readEffective(p, again);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.subject_id, pairwise, 'the same subject, under the same pairwise id');
    assert.deepEqual(second.json.claims, read.json.claims);
  });

  for (const [name, id] of [
    [
      'another client’s pairwise id for the same subject',
      (t: TestProvider) => t.deps.pairwise.subject(t.subjectId, 'travel-demo'),
    ],
    ['a made-up pairwise id', () => 'ppx:subject:AAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ] as const) {
    it(`${name}: the same 201, but no subject can approve it`, async () => {
      const grants = (await grantsOf(p)).length;
      const pending = await ask(p, { subject_id: id(p) });
      assert.deepEqual(Object.keys(pending.response.json).sort(), [
        'consent_url',
        'expires_at',
        'grant_request_id',
        'request_token',
        'status',
      ]);
      const approved = await approve(p, pending.id);
      assert.equal(approved.status, 404, approved.text);
      assert.equal(approved.json.error, 'not_found');
      assert.equal((await exchange(p, pending)).status, 400);
      assert.equal((await grantsOf(p)).length, grants, 'nothing was granted');
      const page = await api(p.url, `/consent/${encodeURIComponent(pending.id)}`);
      assert.ok(!page.text.includes(p.subjectId));
    });
  }
});
