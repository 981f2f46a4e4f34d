import { request } from 'node:http';

// Requests held in flight on purpose, for the graceful-shutdown checks (test/cli/serve-lifecycle.test.ts,
// bench/soak.ts): the headers and half the body are sent now, the rest when `finish` is called,
// so the server has the request in hand when SIGTERM comes, and its answer can only come after.
// Not a *.test.ts file.

export type HeldAnswer =
  | { readonly status: number; readonly text: string }
  | { readonly error: string; readonly status?: undefined };

export interface HeldRequest {
  readonly label: string;
  /** Sends the rest of the body and ends the request. */
  finish(): void;
  /** The whole answer, or why there was none (a reset). */
  readonly answered: Promise<HeldAnswer>;
  /** Resolves once the first half of the body is on the socket. */
  readonly sent: Promise<void>;
}

export interface HeldInit {
  readonly path: string;
  readonly headers: Record<string, string>;
  /** JSON or form text; at least two bytes, so that there is a second half to hold back. */
  readonly body: string;
}

export function holdRequest(base: string, label: string, init: HeldInit): HeldRequest {
  const bytes = Buffer.from(init.body);
  const half = Math.max(1, Math.floor(bytes.length / 2));
  const req = request(`${base}${init.path}`, {
    method: 'POST',
    // A connection of its own: the drain closes idle keep-alive connections, this one is busy.
    agent: false,
    headers: { ...init.headers, 'content-length': String(bytes.length) },
  });
  const answered = new Promise<HeldAnswer>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', (e) => resolve({ error: e.message }));
    });
    req.on('error', (e) =>
      resolve({ error: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`.trim() }),
    );
  });
  const sent = new Promise<void>((resolve) => req.write(bytes.subarray(0, half), () => resolve()));
  return { label, answered, sent, finish: () => req.end(bytes.subarray(half)) };
}
