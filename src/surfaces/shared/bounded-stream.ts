import type { Metrics } from '../../operations/provider/metrics.ts';

// A stream's unread bytes, bounded (issue 22, item 8). A server-sent stream is written as fast as
// events come, whether or not its reader reads: a client that never reads held every event in
// the process (16 runs × 60 writes of a 200 KB claim took it from 162 MB to 1,062 MB). Each
// stream here counts what waits for its reader, in its own queue and in the response's socket
// (`writableLength`), and a stream that falls more than STREAM_BUFFER_BYTES behind is cut: its
// connection is destroyed, which frees both. A reader that was merely slow reconnects and
// resumes (AG-UI: `forwardedProps.since` and the state it holds; A2A: the task, by GetTask or
// a resubscription), so nothing is lost that it cannot get again.

/** What one stream may hold unread before it is cut (docs/ag-ui.md, docs/a2a.md "Slow readers"). */
export const STREAM_BUFFER_BYTES = 4 * 1024 * 1024;

/** The node response a stream is written to (hono's HttpBindings `outgoing`), as far as is used here. */
export interface Outgoing {
  readonly writableLength: number;
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
  destroy(): void;
  once(event: 'close' | 'finish', listener: () => void): unknown;
}

export interface BoundedSink {
  /**
   * Queues a chunk for the reader. False when the stream has ended, or is cut now because the
   * reader is too far behind: what the caller was writing then goes nowhere, and it stops.
   */
  write(chunk: Uint8Array): boolean;
  /** Ends the stream once the reader has everything queued. */
  close(): void;
  /** False once the stream has ended, whichever side ended it. */
  readonly open: boolean;
}

export interface BoundedOptions {
  readonly surface: 'agui' | 'a2a' | 'mcp';
  readonly metrics: Metrics;
  /** The response the stream is written to, when served by node (absent: in-process requests). */
  readonly outgoing?: Outgoing;
  readonly limitBytes?: number;
  /** Called once when the stream ends: closed, cut, or left by its reader. */
  readonly onEnd?: () => void;
  /**
   * Called once when nothing of the stream is left in the process: it has ended and its last
   * byte was handed to the kernel, or the connection closed. A stream that ended unread still
   * holds its bytes until then (and counts in ppx_stream_buffered_bytes).
   */
  readonly onFlushed?: () => void;
}

/**
 * A byte stream whose writer never waits and never runs ahead by more than the bound. `start`
 * gets the sink (once); events are written to it as they come.
 */
export function boundedStream(
  options: BoundedOptions,
  start: (sink: BoundedSink) => void,
): ReadableStream<Uint8Array> {
  const limit = options.limitBytes ?? STREAM_BUFFER_BYTES;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  let flushed = false;
  const flush = () => {
    if (flushed) return;
    flushed = true;
    options.metrics.streamBuffers.delete(measured);
    options.onFlushed?.();
  };
  const outgoing = options.outgoing;
  if (outgoing !== undefined) {
    outgoing.once('close', flush);
    outgoing.once('finish', flush);
  }
  const end = () => {
    if (ended) return;
    ended = true;
    options.onEnd?.();
    if (outgoing === undefined || outgoing.destroyed || outgoing.writableFinished) flush();
  };
  /** What waits for the reader: in the stream's own queue, then in the response and its socket. */
  const buffered = () => {
    // Still right once closed: the queue drains to its reader (cancelled or errored: 0).
    const queued = Math.max(0, -(controller.desiredSize ?? 0));
    return queued + (outgoing?.destroyed === false ? outgoing.writableLength : 0);
  };
  const measured = { surface: options.surface, buffered };
  const cut = () => {
    options.metrics.streamsCut.labels(options.surface).inc();
    end();
    // Destroying the response drops the socket's buffer, and makes the server cancel the stream
    // (dropping its queue); without one, erroring the stream drops the queue.
    if (outgoing !== undefined && !outgoing.destroyed) outgoing.destroy();
    else controller.error(new Error('the reader fell too far behind'));
  };
  const sink: BoundedSink = {
    write(chunk) {
      if (ended) return false;
      const waiting = buffered();
      // One event larger than the bound still goes to a reader that has taken everything else.
      if (waiting > 0 && waiting + chunk.byteLength > limit) {
        cut();
        return false;
      }
      controller.enqueue(chunk);
      return true;
    },
    close() {
      if (ended) return;
      end();
      controller.close();
    },
    get open() {
      return !ended;
    },
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        options.metrics.streamBuffers.add(measured);
        start(sink);
      },
      cancel() {
        end();
      },
    },
    // Counted in bytes, and with no room of its own: every queued byte is "behind".
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
}
