import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { responseHeaders } from '../../../../src/surfaces/shared/response-headers.ts';

// The root middleware's headers (issue 10 item 8), on answers whose headers can be changed and on
// those whose cannot (Response.redirect's are immutable).

function app(baseUrl: string): Hono {
  const a = new Hono();
  a.use(responseHeaders(baseUrl));
  a.get('/json', (c) => c.json({ ok: true }));
  a.get('/redirect', () => Response.redirect('https://elsewhere.example/', 302));
  a.get('/throws', () => {
    throw new Error('boom');
  });
  a.onError((_e, c) => c.json({ error: 'server_error' }, 500));
  return a;
}

describe('responseHeaders', () => {
  it('https base: nosniff and a one-year HSTS on every answer, immutable or failed ones included', async () => {
    for (const path of ['/json', '/redirect', '/throws', '/missing']) {
      const r = await app('https://ppx.example').request(path);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(r.headers.get('strict-transport-security'), 'max-age=31536000', path);
    }
    const moved = await app('https://ppx.example').request('/redirect');
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.get('location'), 'https://elsewhere.example/');
  });

  it('http base: nosniff, no HSTS', async () => {
    const r = await app('http://127.0.0.1:8787').request('/json');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('strict-transport-security'), null);
  });
});
