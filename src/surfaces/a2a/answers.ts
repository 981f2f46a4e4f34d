import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import type { Deps } from '../../operations/deps.ts';
import { boundedStream, type Outgoing } from '../shared/bounded-stream.ts';

// How the A2A surface answers: a JSON-RPC body, or a task stream as server-sent events.

/** A JSON-RPC answer (or an HTTP-level one in the same JSON shape). */
export function rpc(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export function isStream(x: unknown): x is AsyncGenerator<unknown, void, undefined> {
  return typeof x === 'object' && x !== null && Symbol.asyncIterator in x;
}

const UTF8 = new TextEncoder();

/**
 * A task stream as SSE, counted in ppx_open_streams while it lasts, its unread bytes bounded
 * (shared/bounded-stream.ts), and its place among the grant's streams released once nothing of
 * it is left in the process. Its first event is awaited before anything is answered: a stream
 * the SDK refuses at once (a finished task cannot be subscribed to) is then an ordinary JSON-RPC
 * error, never a 500 nor a dropped connection. A failure later ends the stream with an SSE
 * `error` event holding the JSON-RPC error.
 */
export async function streamAnswer(
  events: AsyncGenerator<unknown, void, undefined>,
  id: string | number | null,
  options: { deps: Deps; release: () => void; log: (message: string) => void; outgoing?: Outgoing },
): Promise<Response> {
  const { deps, release, log } = options;
  let first: IteratorResult<unknown, void> | undefined;
  try {
    first = await events.next();
  } catch (e) {
    release();
    return rpc({ jsonrpc: '2.0', id, error: sdkError(e, log) });
  }
  const open = deps.metrics.openStreams.labels('a2a');
  open.inc();
  const bounds = {
    surface: 'a2a' as const,
    metrics: deps.metrics,
    onEnd: () => {
      open.dec();
      void events.return(undefined);
    },
    onFlushed: release,
    ...(options.outgoing ? { outgoing: options.outgoing } : {}),
  };
  const stream = boundedStream(bounds, (sink) => {
    void (async () => {
      try {
        // Not kept by this closure, which lives as long as the stream: the bytes are what wait.
        let next = first as IteratorResult<unknown, void>;
        first = undefined;
        while (!next.done) {
          if (!sink.write(UTF8.encode(formatSSEEvent(next.value)))) return; // cut, or the reader left
          next = await events.next();
        }
      } catch (e) {
        sink.write(UTF8.encode(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: sdkError(e, log) })));
      }
      sink.close();
    })();
  });
  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS } });
}

/**
 * An error the SDK threw, as the JSON-RPC error it maps it to; an unexpected one (`-32603`) says
 * nothing of its insides to the caller, and goes to the log (STYLE §5).
 */
function sdkError(e: unknown, log: (message: string) => void): { code: number; message: string } {
  const mapped = JsonRpcTransportHandler.mapToJSONRPCError(e);
  if (mapped.code !== -32603) return { code: mapped.code, message: mapped.message };
  log(`a2a stream failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return { code: -32603, message: 'the provider failed to answer this stream; it has been logged' };
}
