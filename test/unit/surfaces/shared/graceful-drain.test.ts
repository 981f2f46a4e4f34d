import assert from 'node:assert/strict';
import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { SERVER_OPTIONS, trackConnections } from '../../../../src/surfaces/shared/graceful-drain.ts';

// The drain's `Connection: close` (src/surfaces/shared/graceful-drain.ts): written into every head
// that goes out once the server drains, an answer already in flight included, and into none
// before. The whole stop, on every surface, is test/cli/serve-lifecycle.test.ts.

function get(
  port: number,
  agent: Agent,
  path: string,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful drain', () => {
  it('says Connection: close in every head written once the server drains, and in none before', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const heldArrived = new Promise<void>((r) => (arrived = r));
    const server = createServer(SERVER_OPTIONS, (req, res) => {
      if (req.url === '/held') {
        arrived();
        // An implicit head (no writeHead of its own): end() writes it.
        void held.then(() => res.end('held'));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    const drainer = trackConnections(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      const before = await get(port, agent, '/');
      assert.equal(before.headers.connection, 'keep-alive');
      const inFlight = get(port, new Agent({ keepAlive: true }), '/held');
      await heldArrived;
      const drained = drainer.drain(5000);
      release();
      const answered = await inFlight;
      assert.equal(answered.status, 200);
      assert.equal(answered.headers.connection, 'close');
      await drained;
      assert.equal(server.listening, false);
    } finally {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
