import type { Server, ServerResponse } from 'node:http';

// Stopping the listener without resetting what clients sent before the signal (SIGTERM, `ppx
// serve`). Node accepts one connection per turn of its event loop, so a burst of connections
// that came while the process was busy waits in the kernel's accept queue, and closing the
// listener at once resets every one not accepted yet: requests their clients had sent (found by
// holding requests in flight across SIGTERM, test/cli/serve-lifecycle.test.ts). So the listener
// stays open until QUIET_TURNS turns in a row accepted nothing (LINGER_MAX_MS at most), and only
// then closes and starts closing idle connections: by then every connection accepted has been
// read, so Node's idea of idle (no request in progress) is right about it. Every answer given
// while draining says `Connection: close`, so that no client sends another request on it.

const QUIET_TURNS = 2;
const LINGER_MAX_MS = 1000;

export interface Drainer {
  /**
   * Stops accepting connections (once the accept queue is empty), answers what was asked,
   * closes each connection once idle, and after `graceMs` closes whatever is still open (a
   * stream). Resolves when every connection is gone.
   */
  drain(graceMs: number): Promise<void>;
}

/** Tracks `server`'s responses from now on; call it before the server accepts any connection. */
export function trackConnections(server: Server): Drainer {
  const open = new Set<ServerResponse>();
  let draining = false;
  let accepted = 0;

  server.on('connection', () => accepted++);
  // First among the request listeners, so that the header is set before any answer is written.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (draining) res.setHeader('connection', 'close');
    open.add(res);
    res.once('close', () => open.delete(res));
  });

  return {
    drain: (graceMs) =>
      new Promise<void>((done) => {
        draining = true;
        for (const res of open) if (!res.headersSent) res.setHeader('connection', 'close');
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        const started = Date.now();
        let seen = accepted;
        let quiet = 0;
        // One look per turn: setImmediate runs after the turn's poll phase, where accepts happen.
        const turn = () => {
          quiet = accepted === seen ? quiet + 1 : 0;
          seen = accepted;
          if (quiet < QUIET_TURNS && Date.now() - started < LINGER_MAX_MS) {
            setImmediate(turn);
            return;
          }
          const idle = setInterval(() => server.closeIdleConnections(), 50);
          server.close(() => {
            clearInterval(idle);
            clearTimeout(force);
            done();
          });
        };
        setImmediate(turn);
      }),
  };
}
