import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientRecord } from '../../../src/model/client.ts';
import type { WritebackPolicy } from '../../../src/model/vocabulary.ts';
import { inTransaction } from '../../../src/operations/transaction.ts';
import { writePowerWords } from '../../../src/surfaces/shared/writeback-words.ts';
import { type RunRecord, recorder, reviewAgent } from '../../support/agui-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { proposalsOf, propose, proposed } from '../../support/writeback.ts';

// "Explain this" over AG-UI, as the person's app asks for it (issue 22 items 3, 4 and 15): an
// app is named as the pages name it (never by its client id, an impostor with its host), a
// suggestion waiting for the person says why as the person's own rule (not as the app's words),
// and a grant says exactly what its write-back policy lets the app do, which is what it does.

const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;

/** The assistant messages of one run explaining `targets`, one string per target. */
async function explain(p: TestProvider, targets: Record<string, string>[]): Promise<string[]> {
  const agent = reviewAgent(p);
  const record: RunRecord = { events: [] };
  await agent.runAgent({ forwardedProps: { follow: false, explain: targets } }, recorder(record));
  assert.equal(record.failure, undefined, record.failure?.message);
  return agent.messages
    .filter((m) => m.role === 'assistant' && typeof m.content === 'string')
    .map((m) => m.content as string);
}

describe('AG-UI explanations: apps by name, reasons as the person’s rules, write power exactly', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  it('a suggestion names its app, and says it waits because the person asked to review every change', async () => {
    const { token } = await p.grant({
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
    });
    const r = await propose(p, token, [proposed('fragrance', 'freshness_preference', 0.9)]);
    assert.equal(r.status, 202, r.text);
    const proposalId = r.json.proposals[0].proposal_id as string;
    const [text] = await explain(p, [{ proposal_id: proposalId }]);
    assert.ok(text);
    assert.match(text, /^Fragrance Demo App suggested/);
    assert.doesNotMatch(text, /fragrance-demo/, 'no client id');
    assert.match(text, /You asked to review every change from this app/i);
    assert.doesNotMatch(
      text,
      /It said why|the grant requires|subject/,
      `not the provider's words as the app's: ${text}`,
    );
  });

  it('an app that registered itself is named with its host, never by its dcr_ client id', async () => {
    const reg = await api(p.url, '/oauth/register', {
      body: {
        client_name: 'Fragrance Demo App',
        redirect_uris: ['https://stranger.example/cb'],
        token_endpoint_auth_method: 'none',
      },
    });
    assert.equal(reg.status, 201, reg.text);
    const id = reg.json.client_id as string;
    const { grant, token } = await p.grant({
      client_id: id,
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'review_required',
    });
    const r = await propose(p, token, [proposed('fragrance', 'projection_tolerance', 0.3)]);
    assert.equal(r.status, 202, r.text);
    const texts = await explain(p, [
      { grant_id: grant.grant_id },
      { proposal_id: r.json.proposals[0].proposal_id },
      { claim_id: 'ppx:claim:demo-frag-family' },
    ]);
    assert.equal(texts.length, 3);
    for (const text of texts) assert.ok(!text.includes(id), `no client id: ${text}`);
    assert.match(texts[0]!, /^“Fragrance Demo App” at stranger\.example can see your/);
    assert.match(texts[1]!, /^“Fragrance Demo App” at stranger\.example suggested/);
    assert.match(texts[2]!, /Who can see it right now: .*“Fragrance Demo App” at stranger\.example/);
  });

  it('a metadata document on a stranger’s host is named with that host and port', async () => {
    const id = 'https://impostor.example:8443/client.json';
    const record: ClientRecord = {
      client_id: id,
      name: 'Fragrance Demo App',
      redirect_uris: ['https://impostor.example:8443/cb'],
      kind: 'public',
      created_at: new Date().toISOString(),
      source: 'metadata_document',
      metadata: { client_id: id, redirect_uris: ['https://impostor.example:8443/cb'] },
    };
    await inTransaction(p.deps, (tx) => tx.store.putClient(record));
    const { grant } = await p.grant({ client_id: id });
    const [text] = await explain(p, [{ grant_id: grant.grant_id }]);
    assert.match(text!, /^“Fragrance Demo App” at impostor\.example:8443 can see your/);
  });

  const policies: WritebackPolicy[] = ['forbidden', 'review_required', 'auto_for_low_risk', 'allow'];
  for (const policy of policies) {
    it(`a grant under write-back "${policy}" is explained as exactly what it lets the app do`, async () => {
      const { grant, token } = await p.grant({
        allowed_operations: ['read', 'query', 'propose_update'],
        writeback_policy: policy,
      });
      const [text] = await explain(p, [{ grant_id: grant.grant_id }]);
      assert.ok(text?.includes(writePowerWords(policy)), `${policy}: ${text}`);
      assert.doesNotMatch(text!, /which you review/, 'no promise of review the policy does not keep');
      // What happens matches the words: a low-risk change, and a change to what the person said.
      const before = (await proposalsOf(p)).length;
      const lowRisk = await propose(p, token, [proposed('fragrance', 'freshness_preference', 0.8)]);
      const theirs = await propose(p, token, [proposed('fragrance', 'intensity_preference', 0.9)]);
      if (policy === 'forbidden') {
        assert.equal(lowRisk.status, 403);
        assert.equal(theirs.status, 403);
        assert.match(text!, /cannot change your profile/);
        assert.equal((await proposalsOf(p)).length, before);
        return;
      }
      const withoutAsking = /without asking you/.test(text!);
      assert.equal(lowRisk.json.proposals[0].status === 'applied', withoutAsking, `${policy}: ${text}`);
      assert.equal(theirs.json.proposals[0].status, 'pending', 'what the person said always waits');
      assert.match(
        text!,
        policy === 'review_required' ? /nothing changes until you accept/ : /you said yourself/,
      );
    });
  }

  it('a grant without propose_update cannot change the profile, whatever its policy', async () => {
    const { grant } = await p.grant({ writeback_policy: 'allow' });
    const [text] = await explain(p, [{ grant_id: grant.grant_id }]);
    assert.match(text!, /It cannot change your profile\./);
    assert.doesNotMatch(text!, /without asking you/);
  });

  it('a grant that may confirm updates is told as changing the profile without asking, which it can', async () => {
    const { grant, token } = await p.grant({
      allowed_operations: ['read', 'query', 'propose_update', 'confirm_update'],
      writeback_policy: 'review_required',
    });
    const [text] = await explain(p, [{ grant_id: grant.grant_id }]);
    assert.match(text!, /It can change your profile without asking you: it may accept its own suggestions/);
    const r = await propose(p, token, [proposed('fragrance', 'freshness_preference', 0.1)]);
    assert.equal(r.status, 202, r.text);
    const id = r.json.proposals[0].proposal_id as string;
    const c = await api(p.url, '/v1/profile/confirm-updates', {
      token,
      body: { decisions: [{ proposal_id: id, action: 'confirm' }] },
    });
    assert.equal(c.status, 200, c.text);
    assert.equal((await proposalsOf(p)).find((x) => x.proposal_id === id)?.status, 'confirmed');
  });

  it('outside text in values and domains is explained without bidi controls', async () => {
    const subject = await propose(p, p.subjectToken, [
      proposed('fragrance', 'family_preference', { '\u202eyxoow': 0.9, 'citrus\u2066x\u2069': 0.2 }),
    ]);
    assert.equal(subject.status, 200, subject.text);
    const { grant } = await p.grant({ allowed_domains: ['fragrance', '\u202eniamod'] });
    const claim = subject.json.claims[0].claim_id as string;
    const texts = await explain(p, [{ claim_id: claim }, { grant_id: grant.grant_id }]);
    for (const text of texts) assert.doesNotMatch(text, BIDI, text);
    assert.match(texts[0]!, /yxoow/i);
    assert.match(texts[1]!, /niamod/i);
  });
});
