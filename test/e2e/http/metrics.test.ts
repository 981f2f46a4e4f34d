import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventType } from '@ag-ui/client';
import { eventually, follow, reviewAgent } from '../../support/agui-client.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// /metrics (issue 14, item 4): Prometheus text format with requests and latencies per surface and
// route, grant decisions by outcome, token verifications, store timings, open streams and the
// change-event lag, and labels that never name a person, an app or an id.

/** The value of one sample line, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const ok = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (ok) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('/metrics', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(async () => p.close());

  const scrape = async () => {
    const r = await fetch(`${p.url}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return r.text();
  };

  it('counts requests by surface and route pattern, token verifications, grant decisions and store calls', async () => {
    const g = await p.grant();
    const claimId = 'ppx:claim:demo-core-ambiguity';
    assert.equal((await api(p.url, '/v1/profile/effective', { token: g.token, body: {} })).status, 200);
    assert.equal((await api(p.url, '/v1/profile/effective', { token: 'nope', body: {} })).status, 401);
    await api(p.url, `/v1/profile/claims/${encodeURIComponent(claimId)}`, {
      token: g.token,
      method: 'DELETE',
    });
    await api(p.url, '/no/such/thing');
    const text = await scrape();
    const ok = sample(text, 'ppx_http_requests_total', {
      surface: 'http',
      route: '/v1/profile/effective',
      method: 'POST',
      status: '200',
    });
    assert.ok((ok ?? 0) >= 1, 'the read is counted under its route pattern');
    assert.ok((sample(text, 'ppx_http_requests_total', { status: '401' }) ?? 0) >= 1);
    assert.ok(text.includes('route="/v1/profile/claims/:claim_id"'), 'a pattern, not the path');
    assert.ok(text.includes('route="unmatched"'));
    assert.ok((sample(text, 'ppx_http_request_duration_seconds_count', { surface: 'http' }) ?? 0) >= 1);
    assert.ok((sample(text, 'ppx_token_verifications_total', { outcome: 'valid' }) ?? 0) >= 1);
    assert.ok((sample(text, 'ppx_token_verifications_total', { outcome: 'invalid_token' }) ?? 0) >= 1);
    assert.ok((sample(text, 'ppx_grant_decisions_total', { outcome: 'allowed' }) ?? 0) >= 1);
    assert.ok((sample(text, 'ppx_store_call_duration_seconds_count', { method: 'getGrant' }) ?? 0) >= 1);
    assert.ok(text.includes('ppx_process_'), 'the process metrics');
    // No label names a person, an app or an id.
    for (const secret of [
      g.grant.grant_id,
      g.grant.grantee_id,
      p.subjectId,
      claimId,
      'demo-core-ambiguity',
    ]) {
      assert.ok(!text.includes(secret), `no ${secret} in /metrics`);
    }
  });

  it('shows the open review streams and the lag of the changes they were sent', async () => {
    const f = follow(reviewAgent(p));
    await eventually(() => f.record.events.some((e) => e.type === EventType.STATE_SNAPSHOT), 'a snapshot');
    assert.equal(sample(await scrape(), 'ppx_open_streams', { surface: 'agui' }), 1);
    const before = sample(await scrape(), 'ppx_change_event_lag_seconds_count') ?? 0;
    await p.grant();
    await eventually(() => f.record.events.some((e) => e.type === EventType.STATE_DELTA), 'a delta');
    const after_ = await scrape();
    assert.ok((sample(after_, 'ppx_change_event_lag_seconds_count') ?? 0) > before);
    await f.stop();
    const closed = async () => sample(await scrape(), 'ppx_open_streams', { surface: 'agui' }) === 0;
    for (let i = 0; i < 100 && !(await closed()); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(await closed(), 'the stream is no longer counted once it ends');
  });
});
