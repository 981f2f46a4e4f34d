import { type IncomingMessage, type Server, ServerResponse } from 'node:http';

// Stopping the listener without resetting what clients sent before the signal (SIGTERM, `ppx
// serve`). Node accepts one connection per turn of its event loop, so a burst of connections
// that came while the process was busy waits in the kernel's accept queue, and closing the
// listener at once resets every one not accepted yet: requests their clients had sent (found by
// holding requests in flight across SIGTERM, test/cli/serve-lifecycle.test.ts). So the listener
// stays open until QUIET_TURNS turns in a row accepted nothing (LINGER_MAX_MS at most), and only
// then closes and starts closing idle connections: by then every connection accepted has been
// read, so Node's idea of idle (no request in progress) is right about it. Every answer given
// while draining says `Connection: close`, so that no client sends another request on it.
//
// That header is added as each answer's head is written (DrainAwareResponse), not by keeping the
// answers in flight in a set. A set that every response entered and left, with a `close` listener
// each, together with the requests a turn holds back (store.ts#freshReads), made V8 keep the
// requests of the last ~100 ms alive through young-generation collections. Under load each
// scavenge then promoted 1.3 to 3.1 MB instead of ~0.2, and paused 3 to 9 ms instead of ~2
// (docs/benchmarks.md, "The p99: what kept requests alive").

/** The servers draining now (few, and only while they stop). */
const draining = new WeakSet<object>();

/**
 * The ServerResponse class of a server that may drain (SERVER_OPTIONS): while its server drains,
 * the head it writes says `Connection: close`. Every head passes through writeHead, an implicit
 * one too (ServerResponse#_implicitHeader).
 */
class DrainAwareResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(...args: unknown[]): this {
    // net.Server sets `server` on every socket it accepts.
    const server = (this.socket as { server?: object } | null)?.server;
    if (server !== undefined && draining.has(server) && !this.headersSent)
      this.setHeader('connection', 'close');
    return (ServerResponse.prototype.writeHead as (...a: unknown[]) => this).apply(this, args);
  }
}

/** The options a server that trackConnections will drain must be created with. */
export const SERVER_OPTIONS = { ServerResponse: DrainAwareResponse } as const;

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

/**
 * Counts `server`'s connections from now on; call it before the server accepts any connection.
 * The server must have been created with SERVER_OPTIONS.
 */
export function trackConnections(server: Server): Drainer {
  let accepted = 0;
  server.on('connection', () => accepted++);

  return {
    drain: (graceMs) =>
      new Promise<void>((done) => {
        draining.add(server);
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
