import type { Deps } from '../../operations/deps.ts';
import type { GrantWatch } from '../../operations/grants/watch-grant.ts';
import { boundedStream, type Outgoing } from '../shared/bounded-stream.ts';

// A grantee's stream of change notices (issue 25 item 2), in the frames of its protocol
// generation: 2026-07-28's `subscriptions/listen` (listen.ts) and 2025-11-25's GET stream
// (legacy-stream.ts). What a notice says, and when, is decided by the grant's watch
// (operations/grants/watch-grant.ts): only that a resource the grant can read reads differently
// now; this file only writes it.

/** The JSON-RPC messages a generation frames a stream with. */
export interface NoticeFrames {
  /** Sent before anything else (2026-07-28's acknowledgement). */
  readonly first?: object;
  /** The notice that `uri` changed. */
  updated(uri: string): object;
  /** Sent when the watch ends (2026-07-28's graceful result); the stream closes after it. */
  readonly last?: object;
}

export interface NoticeStreamOptions {
  readonly outgoing?: Outgoing;
  /** Between keep-alive comments, so proxies do not close a quiet stream (default 15 s). */
  readonly keepAliveMs?: number;
  /** Called once when the stream has ended, whichever side ended it. */
  readonly onEnd?: () => void;
}

const UTF8 = new TextEncoder();
const KEEPALIVE = UTF8.encode(': keepalive\n\n');

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
} as const;

const KEEPALIVE_MS = 15_000;

/** One JSON-RPC message as a server-sent event. */
export function sseFrame(message: object): string {
  return `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`;
}

function frame(message: object): Uint8Array {
  return UTF8.encode(sseFrame(message));
}

/** Writes the watch's notices as server-sent events until the watch or the reader ends. */
export function noticeStream(
  deps: Deps,
  watch: GrantWatch,
  frames: NoticeFrames,
  options: NoticeStreamOptions,
): ReadableStream<Uint8Array> {
  const open = deps.metrics.openStreams.labels('mcp');
  open.inc();
  let timer: ReturnType<typeof setInterval> | undefined;
  const bounds = {
    surface: 'mcp' as const,
    metrics: deps.metrics,
    onEnd: () => {
      open.dec();
      if (timer !== undefined) clearInterval(timer);
      watch.close();
      options.onEnd?.();
    },
    ...(options.outgoing ? { outgoing: options.outgoing } : {}),
  };
  return boundedStream(bounds, (sink) => {
    if (frames.first !== undefined) sink.write(frame(frames.first));
    timer = setInterval(() => sink.write(KEEPALIVE), options.keepAliveMs ?? KEEPALIVE_MS);
    void (async () => {
      try {
        for await (const notice of watch) {
          if (!sink.open) return;
          if (notice.kind === 'ended') break;
          // A watched view's id is its resource URI (watched-resources.ts).
          sink.write(frame(frames.updated(notice.id)));
        }
      } catch {
        // A watch that fails ends the stream as one that ended: the grantee listens again, and a
        // failure of its grant is then answered at the door (401/403).
      }
      if (frames.last !== undefined) sink.write(frame(frames.last));
      sink.close();
    })();
  });
}
