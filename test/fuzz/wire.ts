import { connect, type Socket } from 'node:net';
import { type ParsedHead, ResponseParser } from './http-parse.ts';

// Requests as bytes over plain TCP connections, kept alive between requests. A request is sent
// exactly as generated: its headers may hold CR/LF or bytes past ASCII, frame the body twice, or
// the body may come slowly, in pieces, or be cut off with the connection dropped.

/** How the body travels. */
export type Delivery =
  | { readonly kind: 'whole' }
  /** In `pieces` writes `pauseMs` apart. */
  | { readonly kind: 'slow'; readonly pieces: number; readonly pauseMs: number }
  /** Only the first `keepBytes` of the request, then the connection is destroyed. */
  | { readonly kind: 'abort'; readonly keepBytes: number };

export interface RawRequest {
  readonly method: string;
  /** The request-target as sent (latin1: one character per byte). */
  readonly target: string;
  /** Sent as given, in order, after `Host` (unless one is given); latin1. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Buffer;
  /** False: no Content-Length is added for the body (the headers frame it, or nothing does). */
  readonly autoLength?: boolean;
  readonly delivery?: Delivery;
  /**
   * The connection is closed after this request: its framing may leave bytes the server reads as
   * another request (two Content-Lengths, CR/LF in a header), which must not be taken for the
   * answer to the next one.
   */
  readonly oneShot?: boolean;
}

export interface RawResponse extends ParsedHead {
  readonly body: Buffer;
  readonly bodyBytes: number;
  /** The fuzzer stopped reading an event stream that was still open. */
  readonly cut: boolean;
}

export type Outcome =
  | { readonly kind: 'answered'; readonly response: RawResponse; readonly ms: number }
  | {
      readonly kind: 'unanswered';
      /** closed: the server closed the connection; reset: it reset it; timeout: nothing came in time. */
      readonly why: 'closed' | 'reset' | 'timeout' | 'aborted' | 'garbled';
      readonly detail: string;
      readonly ms: number;
    };

export interface ExchangeOptions {
  /** Nothing complete within this: the server is not answering. */
  readonly timeoutMs: number;
  /** An event stream still open after this long without data is cut (a following review run). */
  readonly streamIdleMs: number;
  /** …or after this long in all. */
  readonly streamMaxMs: number;
}

export function serialize(req: RawRequest, host: string): { head: Buffer; body: Buffer } {
  const lines = [`${req.method} ${req.target} HTTP/1.1`];
  const names = new Set(req.headers.map(([k]) => k.toLowerCase()));
  if (!names.has('host')) lines.push(`Host: ${host}`);
  for (const [k, v] of req.headers) lines.push(`${k}: ${v}`);
  const body = req.body ?? Buffer.alloc(0);
  const framed = names.has('content-length') || names.has('transfer-encoding');
  if (req.autoLength !== false && !framed && (body.length > 0 || req.method === 'POST')) {
    lines.push(`Content-Length: ${body.length}`);
  }
  return { head: Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body };
}

/** One kept-alive connection; one exchange at a time. */
export class Connection {
  readonly #socket: Socket;
  #usable = true;
  /** Set while an exchange reads. */
  #onData: ((chunk: Buffer) => void) | undefined;
  #onEnd: ((why: 'closed' | 'reset', detail: string) => void) | undefined;
  #ended: { why: 'closed' | 'reset'; detail: string } | undefined;
  /** Requests answered on this connection. */
  uses = 0;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (this.#onData) this.#onData(chunk);
      else this.#usable = false; // bytes nobody asked for
    });
    const ended = (why: 'closed' | 'reset', detail: string) => {
      this.#usable = false;
      this.#ended ??= { why, detail };
      this.#onEnd?.(why, detail);
    };
    socket.on('error', (e: NodeJS.ErrnoException) => ended('reset', e.code ?? e.message));
    socket.on('end', () => ended('closed', 'the server closed the connection'));
    socket.on('close', () => ended('closed', 'the connection closed'));
  }

  static open(port: number, host: string, timeoutMs = 10_000): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection to ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new Connection(socket));
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  get usable(): boolean {
    return this.#usable && !this.#socket.destroyed;
  }

  destroy(): void {
    this.#usable = false;
    this.#socket.destroy();
  }

  /** Sends `req` and reads its answer (or learns there is none). */
  exchange(req: RawRequest, host: string, options: ExchangeOptions): Promise<Outcome> {
    const started = performance.now();
    const { head, body } = serialize(req, host);
    const parser = new ResponseParser(req.method);
    const delivery = req.delivery ?? { kind: 'whole' };
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      let streamIdle: ReturnType<typeof setTimeout> | undefined;
      let streamMax: ReturnType<typeof setTimeout> | undefined;
      const timers: ReturnType<typeof setTimeout>[] = [];
      const finish = (outcome: Outcome, keep: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearTimeout(streamIdle);
        clearTimeout(streamMax);
        for (const t of timers) clearTimeout(t);
        this.#onData = undefined;
        this.#onEnd = undefined;
        if (!keep) this.destroy();
        resolve(outcome);
      };
      const answered = (cut: boolean) => {
        const h = parser.head!;
        const connection = h.headers.get('connection')?.toLowerCase() ?? '';
        this.uses++;
        finish(
          {
            kind: 'answered',
            response: { ...h, body: parser.body(), bodyBytes: parser.bodyBytes, cut },
            ms: performance.now() - started,
          },
          !cut &&
            !connection.includes('close') &&
            parser.problem === undefined &&
            !parser.untilClose &&
            delivery.kind === 'whole' &&
            req.oneShot !== true,
        );
      };
      const deadline = setTimeout(() => {
        if (parser.head !== undefined && isStream(parser.head)) return answered(true);
        finish(
          {
            kind: 'unanswered',
            why: 'timeout',
            detail: `no complete answer within ${options.timeoutMs} ms`,
            ms: performance.now() - started,
          },
          false,
        );
      }, options.timeoutMs);

      this.#onData = (chunk) => {
        const complete = parser.feed(chunk);
        if (parser.problem !== undefined) {
          return finish(
            { kind: 'unanswered', why: 'garbled', detail: parser.problem, ms: performance.now() - started },
            false,
          );
        }
        if (complete) return answered(false);
        if (parser.head !== undefined && isStream(parser.head)) {
          clearTimeout(streamIdle);
          streamIdle = setTimeout(() => answered(true), options.streamIdleMs);
          streamMax ??= setTimeout(() => answered(true), options.streamMaxMs);
        }
      };
      this.#onEnd = (why, detail) => {
        if (parser.end()) return answered(false);
        // A response whose head arrived but not all of its body still tells its status.
        if (parser.head !== undefined && (why === 'reset' || isStream(parser.head))) return answered(true);
        finish({ kind: 'unanswered', why, detail, ms: performance.now() - started }, false);
      };
      if (this.#ended) return this.#onEnd(this.#ended.why, this.#ended.detail);

      const write = (bytes: Buffer) => {
        if (!this.#socket.destroyed && bytes.length > 0) this.#socket.write(bytes);
      };
      if (delivery.kind === 'whole') {
        write(body.length > 0 ? Buffer.concat([head, body]) : head);
      } else if (delivery.kind === 'abort') {
        const all = Buffer.concat([head, body]);
        write(all.subarray(0, Math.min(delivery.keepBytes, all.length - 1)));
        // Long enough for the bytes to leave, then the client is gone.
        timers.push(
          setTimeout(() => {
            finish(
              {
                kind: 'unanswered',
                why: 'aborted',
                detail: 'the upload was cut off',
                ms: performance.now() - started,
              },
              false,
            );
          }, 20),
        );
      } else {
        write(head);
        const size = Math.max(1, Math.ceil(body.length / delivery.pieces));
        for (let i = 0; i * size < body.length; i++) {
          const piece = body.subarray(i * size, (i + 1) * size);
          timers.push(setTimeout(() => write(piece), (i + 1) * delivery.pauseMs));
        }
      }
    });
  }
}

function isStream(head: ParsedHead): boolean {
  return (head.headers.get('content-type') ?? '').includes('text/event-stream');
}
