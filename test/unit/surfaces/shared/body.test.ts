import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Result } from '../../../../src/model/errors.ts';
import { readJsonBody } from '../../../../src/surfaces/shared/body.ts';

// Reading a body from Node's request as a client sends it: all of it in the packet of its
// headers (taken at once), in pieces over time (read as it comes), cut short, or over the limit.
// The answer is the reading's result as JSON.

const LIMIT = 64;

function read(req: IncomingMessage): Promise<Result<unknown>> {
  return readJsonBody(
    { stream: req, contentLength: req.headers['content-length'], contentType: req.headers['content-type'] },
    LIMIT,
  );
}

describe('readJsonBody on a Node request', () => {
  let port = 0;
  const results: Result<unknown>[] = [];
  // As a surface does, the body is read a turn after the request arrived (its token checked
  // first): by then a body that came with its headers is all buffered.
  const server = createServer((req, res) => {
    void new Promise((turn) => setImmediate(turn)).then(async () => {
      const result = await read(req);
      results.push(result);
      res.end(JSON.stringify(result));
    });
  });
  before(() => new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done())));
  before(() => {
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((done) => server.close(() => done())));

  /** Sends the raw request in parts, `pauseMs` apart, and gives back what was answered (or ''). */
  function send(parts: readonly string[], pauseMs = 0, end = false): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString();
        if (answer.includes('\r\n\r\n') && /\}$/.test(answer)) socket.end();
      });
      socket.on('close', () => resolve(answer.slice(answer.indexOf('\r\n\r\n') + 4)));
      socket.on('error', () => resolve(''));
      let i = 0;
      const next = () => {
        if (i < parts.length) socket.write(parts[i++]!, () => setTimeout(next, pauseMs));
        else if (end) socket.end();
      };
      next();
    });
  }

  const head = (length: number, extra = '') =>
    `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

  it('takes a body that came with its headers, whole', async () => {
    const body = '{"context":{"occasion":"date"}}';
    const answer = JSON.parse(await send([head(body.length) + body]));
    assert.deepEqual(answer, { ok: true, value: { context: { occasion: 'date' } } });
  });

  it('reads a body that comes in pieces after its headers', async () => {
    const body = '{"context":{"occasion":"work"}}';
    const answer = JSON.parse(await send([head(body.length), body.slice(0, 10), body.slice(10)], 30));
    assert.deepEqual(answer, { ok: true, value: { context: { occasion: 'work' } } });
  });

  it('refuses a body cut short by the client, as an incomplete request', async () => {
    const before = results.length;
    await send([`${head(40)}{"context":`], 10, true);
    // The client left: nothing can be answered, but the reading ended as a refusal, not a crash.
    while (results.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    const result = results[before];
    assert.equal(result?.ok, false);
    assert.equal(result.ok === false && result.error.code, 'invalid_request');
  });

  it('refuses a body over the limit, declared or not', async () => {
    const big = `{"a":"${'x'.repeat(LIMIT)}"}`;
    const declared = JSON.parse(await send([head(big.length) + big]));
    assert.equal(declared.error.code, 'payload_too_large');
    const chunked = JSON.parse(
      await send([
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
      ]),
    );
    assert.equal(chunked.error.code, 'payload_too_large');
  });
});
