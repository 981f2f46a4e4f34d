import type { MiddlewareHandler } from 'hono';
import { ObjectMark } from '../../model/object-mark.ts';

// One access-log line per request (issue 11): what was asked, how it ended, how long it took and
// what kind of caller it was. Never a token, a cookie, a query string or a body: the path is
// logged without its query (OAuth requests carry state and PKCE values there), and the caller
// only as a kind. The composition root mounts the middleware around every surface; a surface
// names its caller with `noteCaller` once it has authenticated one.

/** What kind of caller a request turned out to be: never who. */
export type CallerKind = 'subject' | 'grant' | 'package' | 'session' | 'none';

export interface AccessEntry {
  /** When the request arrived (RFC 3339, UTC). */
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** Until the answer's head was ready, in milliseconds (a stream goes on after that). */
  readonly ms: number;
  readonly caller: CallerKind;
}

const callers = new ObjectMark<CallerKind>('caller kind');

/** Records the kind of caller a surface authenticated for this request. */
export function noteCaller(request: Request, kind: CallerKind): void {
  callers.set(request, kind);
}

export function accessLog(write: (entry: AccessEntry) => void): MiddlewareHandler {
  return async (c, next) => {
    const at = new Date().toISOString();
    const started = performance.now();
    try {
      await next();
    } finally {
      write({
        at,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        caller: callers.get(c.req.raw) ?? 'none',
      });
    }
  };
}
