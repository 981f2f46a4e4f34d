// One HTTP request of the crash load, answered or not. A request counts as answered only once its
// whole body has arrived: a status line followed by a reset is not an acknowledgement.

export interface Answer {
  readonly status: number;
  readonly text: string;
  /** The parsed JSON body, when it is JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: the harness reads arbitrary JSON answers
  readonly json: any;
  readonly location: string | null;
  readonly setCookie: readonly string[];
}

export interface RequestInit {
  readonly method?: string;
  readonly token?: string;
  /** A JSON body (an object) or a form (URLSearchParams). */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** Sends one request; resolves with its whole answer, rejects when there is none (reset, refused). */
export async function send(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body instanceof URLSearchParams) {
    body = init.body.toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, {
    method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
    redirect: 'manual',
    // Never hang the harness: a request the server neither answers nor resets is an error too.
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    text,
    json,
    location: res.headers.get('location'),
    setCookie: res.headers.getSetCookie(),
  };
}

/** Sends one request that must be answered `expected`; throws otherwise (seeding and checks). */
export async function must(base: string, path: string, init: RequestInit, expected: number): Promise<Answer> {
  const answer = await send(base, path, init);
  if (answer.status !== expected) {
    throw new Error(
      `${init.method ?? 'POST'} ${path}: expected ${expected}, got ${answer.status}: ${answer.text.slice(0, 300)}`,
    );
  }
  return answer;
}
