import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { fail, type PpxFailure, type Result } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import { authenticate, type Caller } from '../../operations/caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { jsonText } from '../json-text.ts';
import { mountMcp } from '../mcp/app.ts';
import { mountWebPages } from '../web/app.ts';
import { limiterKey, readBearer } from './bearer.ts';
import { readJsonBody } from './body.ts';
import { errorResponse, serverError } from './errors.ts';
import { mountOAuth } from './oauth/mount.ts';
import { openApiDocument } from './openapi.ts';
import { RateLimiter } from './rate-limit.ts';
import type { Route } from './route.ts';
import { ROUTES } from './routes.ts';

export interface HttpOptions {
  readonly bodyLimitBytes: number;
  readonly rateLimit: number;
  readonly rateWindowSeconds: number;
  readonly log: (msg: string) => void;
  /** Self-service sign-up on the web pages (`--enable-signup`). */
  readonly signupEnabled?: boolean;
  /** `--dev-allow-http-client-metadata`: OAuth client metadata documents over http (docs/oauth.md). */
  readonly devAllowHttpClientMetadata?: boolean;
}

type Env = { Bindings: HttpBindings };

/** The HTTP binding: every route of the table runs through one pipeline of named steps. */
export function createHttpApp(deps: Deps, options: HttpOptions): Hono<Env> {
  const app = new Hono<Env>();
  const limiter = new RateLimiter(options.rateLimit, options.rateWindowSeconds);
  const openapi = JSON.stringify(openApiDocument(deps.provider, ROUTES));
  const jwks = JSON.stringify({ keys: [deps.tokens.publicJwk] });
  mountOAuth(app, deps, options); // first: its middleware adds resource_metadata to 401s (RFC 9728)
  mountMcp(app, deps, { bodyLimitBytes: options.bodyLimitBytes, limiter });

  for (const route of ROUTES) {
    const handler = (c: Context<Env>) => handle(deps, options, limiter, route, c);
    if (route.method === 'GET') app.get(route.path, handler);
    else if (route.method === 'DELETE') app.delete(route.path, handler);
    else app.post(route.path, handler);
  }
  app.get('/openapi.json', (c) => c.body(openapi, 200, { 'Content-Type': 'application/json' }));
  app.get('/.well-known/jwks.json', (c) => c.body(jwks, 200, { 'Content-Type': 'application/jwk-set+json' }));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  mountWebPages(app, deps, options);
  app.notFound((c) => {
    const allowed = ROUTES.filter((r) => r.path === c.req.path).map((r) => r.method);
    if (allowed.length === 0) {
      return errorResponse({ code: 'not_found', description: `there is no endpoint at ${c.req.path}` });
    }
    // RFC 9110 §15.5.6: a 405 lists the methods the resource supports.
    return errorResponse(
      { code: 'method_not_allowed', description: `${c.req.method} is not allowed on ${c.req.path}` },
      { headers: new Headers({ Allow: allowed.join(', ') }) },
    );
  });
  app.onError((err) => serverError(err, options.log));
  return app;
}

async function handle(deps: Deps, options: HttpOptions, limiter: RateLimiter, route: Route, c: Context<Env>) {
  const headers = new Headers();
  const token = readBearer(c.req.header('authorization'));

  const limited = rateLimit(limiter, token, c, headers);
  if (limited) return errorResponse(limited, { headers });

  let caller: Caller | undefined;
  if (route.auth === 'bearer') {
    if (token === undefined || !token.ok) {
      const failure =
        token?.ok === false ? token.error : fail('invalid_token', 'an access token is required').error;
      return errorResponse(failure, { headers, tokenPresented: token !== undefined });
    }
    const auth = await authenticate(deps, token.value);
    if (!auth.ok) return errorResponse(auth.error, { headers });
    caller = auth.value;
  }

  const query = route.query ? parseInput(route.query, c.req.query(), 'the query string') : undefined;
  if (query && !query.ok) return errorResponse(query.error, { headers });
  const params = route.params ? parseInput(route.params, c.req.param(), 'the path') : undefined;
  if (params && !params.ok) return errorResponse(params.error, { headers });

  let body: unknown;
  if (route.method === 'POST') {
    // Read straight from Node's request when there is one: it skips building a web stream.
    const raw = await readJsonBody(
      {
        stream: c.env.incoming ?? c.req.raw.body,
        contentLength: c.req.header('content-length'),
        contentType: c.req.header('content-type'),
      },
      options.bodyLimitBytes,
    );
    if (!raw.ok) {
      // A body refused for its size may not have been read to the end: the connection cannot be
      // reused safely, so tell the client it closes.
      if (raw.error.code === 'payload_too_large') headers.set('Connection', 'close');
      return errorResponse(uniform(route, raw.error, true), { headers });
    }
    const parsed = route.body ? parseInput(route.body, raw.value, 'the request body') : raw;
    if (!parsed.ok) return errorResponse(uniform(route, parsed.error, true), { headers });
    body = parsed.value;
  }

  const result = await route.run(deps, { caller, body, query: query?.value, params: params?.value });
  if (!result.ok) return errorResponse(uniform(route, result.error, false), { headers });
  headers.set('Content-Type', 'application/json');
  // Profile data is personal, and tokens are secrets: no shared cache may keep either.
  if (route.auth === 'bearer' || route.noStore) headers.set('Cache-Control', 'no-store');
  const status = route.acceptedWhen?.(result.value) ? 202 : (route.successStatus ?? 200);
  // A read's document is shared within its second: its JSON is made once (surfaces/json-text.ts).
  return new Response(jsonText(result.value), { status, headers });
}

/**
 * A route with a uniform failure answers it for every unreadable or invalid body (except one too
 * large or not JSON) and for every operation failure of the same code, so nothing tells which
 * check or field failed.
 */
function uniform(route: Route, failure: PpxFailure, fromBody: boolean): PpxFailure {
  const u = route.uniformFailure;
  if (u === undefined) return failure;
  if (fromBody) {
    const transport = failure.code === 'payload_too_large' || failure.code === 'unsupported_media_type';
    return transport ? failure : u;
  }
  return failure.code === u.code ? u : failure;
}

function rateLimit(
  limiter: RateLimiter,
  token: Result<string> | undefined,
  c: Context<Env>,
  headers: Headers,
): PpxFailure | undefined {
  if (!limiter.enabled) return undefined;
  const { allowed, headers: rl } = limiter.take(
    limiterKey(token, c.env.incoming?.socket.remoteAddress),
    Date.now(),
  );
  for (const [k, v] of rl) headers.set(k, v);
  return allowed
    ? undefined
    : { code: 'rate_limited', description: 'too many requests; retry after the time in Retry-After' };
}
