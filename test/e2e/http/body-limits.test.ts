import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/http-api.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Request bodies over the 256 KiB limit, declared (Content-Length) or streamed (chunked), on every
// endpoint that takes a body. Nothing may be written by a refused request.

const LIMIT = 256 * 1024;
const PATHS = ['/v1/profile/query', '/v1/profile/effective', '/v1/consent/revoke', '/v1/export'] as const;

/** A JSON body streamed in 16 KiB chunks, `total` bytes in all (well over the limit). */
function chunkedBody(total: number): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const chunk = enc.encode(`"${'y'.repeat(16 * 1024)}",`);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(enc.encode('{"pad":['));
      if (sent > total) {
        controller.enqueue(enc.encode('""]}'));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

describe('HTTP body size limit', () => {
  let p: TestProvider;
  let token: string;
  let grantId: string;
  before(async () => {
    p = await startTestProvider();
    ({
      token,
      grant: { grant_id: grantId },
    } = await p.grant({ allowed_operations: ['read', 'query', 'export'] }));
  });
  after(() => p.close());

  async function assertGrantUntouched() {
    const r = await api(p.url, '/v1/profile/summary', { token });
    assert.equal(r.status, 200, `the grant was changed by a refused request: ${r.text}`);
  }

  /** Streams a chunked body with node:http, which reads a response sent before the upload ends. */
  function nodeChunked(path: string): Promise<{ status: number; text: string }> {
    const u = new URL(p.url + path);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write('{"pad":[');
      const chunk = `"${'y'.repeat(16 * 1024)}",`;
      let sent = 0;
      const pump = () => {
        while (sent < LIMIT * 2) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end('""]}');
      };
      pump();
    });
  }

  for (const path of PATHS) {
    describe(`POST ${path}`, () => {
      const body = () => (path === '/v1/consent/revoke' ? { grant_id: grantId } : {});

      it('a body over 256 KiB with Content-Length is 413 payload_too_large', async () => {
        const big = JSON.stringify({ ...body(), pad: 'x'.repeat(LIMIT) });
        const r = await api(p.url, path, { token, body: big });
        assertError(r, 413, 'payload_too_large');
        await assertGrantUntouched();
      });

      it('a body just under the limit is read (and refused only for its unknown field)', async () => {
        const padded = JSON.stringify({ ...body(), pad: 'x'.repeat(LIMIT - 200) });
        assert.ok(Buffer.byteLength(padded) < LIMIT);
        const r = await api(p.url, path, { token, body: padded });
        assertError(r, 400, 'invalid_request');
        await assertGrantUntouched();
      });

      it('a chunked body over 256 KiB is 413 payload_too_large (node:http client)', async () => {
        const r = await nodeChunked(path);
        assert.equal(r.status, 413, r.text);
        assert.equal(JSON.parse(r.text).error, 'payload_too_large');
        await assertGrantUntouched();
      });

      it('a chunked body over 256 KiB is 413 payload_too_large (fetch, ReadableStream, duplex half)', async () => {
        let res: Response;
        try {
          res = await fetch(p.url + path, {
            method: 'POST',
            body: chunkedBody(LIMIT * 2),
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            duplex: 'half',
          } as RequestInit & { duplex: 'half' });
        } catch (err) {
          const cause = (err as { cause?: unknown }).cause;
          assert.fail(`the connection was closed instead of answering 413: ${String(cause ?? err)}`);
        }
        const text = await res.text();
        assert.equal(res.status, 413, text);
        assert.equal(JSON.parse(text).error, 'payload_too_large');
      });

      const oversizedUpload = () =>
        fetch(p.url + path, {
          method: 'POST',
          body: chunkedBody(LIMIT * 2),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          duplex: 'half',
        } as RequestInit & { duplex: 'half' }).then(
          (r) => r.text(),
          () => undefined,
        );

      it('the provider keeps serving new connections after an oversized upload', async () => {
        await oversizedUpload();
        await assertGrantUntouched();
      });
    });
  }

  describe('the connection after a 413', () => {
    const oversizedStream = async () => {
      try {
        const res = await fetch(`${p.url}/v1/profile/query`, {
          method: 'POST',
          body: chunkedBody(LIMIT * 2),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          duplex: 'half',
        } as RequestInit & { duplex: 'half' });
        await res.text();
        return res.status;
      } catch (err) {
        return `request failed: ${String((err as { cause?: unknown }).cause ?? err)}`;
      }
    };

    it('the next requests on the same connection are answered (Content-Length 413)', async () => {
      const big = JSON.stringify({ pad: 'x'.repeat(LIMIT) });
      assert.equal((await api(p.url, '/v1/profile/query', { token, body: big })).status, 413);
      assert.equal((await api(p.url, '/v1/profile/summary', { token })).status, 200);
      assert.equal(await oversizedStream(), 413);
    });

    it('the next requests after a streamed 413 are answered (the 413 says Connection: close)', async () => {
      assert.equal(await oversizedStream(), 413);
      assert.equal((await api(p.url, '/v1/profile/summary', { token })).status, 200);
      assert.equal(await oversizedStream(), 413);
    });
  });
});
