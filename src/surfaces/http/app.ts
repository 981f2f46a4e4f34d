import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { fail, type PpxFailure } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import { authenticate, type Caller } from '../../operations/caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { resourceMetadataUrl } from '../../operations/resources.ts';
import { limiterKey, readBearer } from '../shared/bearer.ts';
import { readJsonBody } from '../shared/body.ts';
import { type ErrorResponseOptions, errorResponse } from '../shared/errors.ts';
import { jsonText } from '../shared/json-text.ts';
import { limitRequest, RATE_LIMITED } from '../shared/rate-limit.ts';
import { openApiDocument } from './openapi.ts';
import type { Route } from './route.ts';
import { ROUTES } from './routes.ts';

// The PPX HTTP binding (bindings/http.md): every route of the table runs through one pipeline of
// named steps (rate limit -> bearer auth -> query/path/body parse -> operation -> response), and
// the OpenAPI document is generated from the same table. Mounted by the composition root
// (src/server.ts).

export interface HttpOptions {
  readonly bodyLimitBytes: number;
}

type Env = { Bindings: HttpBindings };

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;

export function mountHttpApi(app: App, deps: Deps, options: HttpOptions): void {
  const openapi = JSON.stringify(openApiDocument(deps.provider, ROUTES));
  const jwks = JSON.stringify({ keys: [deps.tokens.publicJwk] });
  const errors: ErrorResponseOptions = { resourceMetadata: resourceMetadataUrl(deps.provider, 'api') };
  for (const route of ROUTES) {
    const handler = (c: Context<Env>) => handle(deps, options, errors, route, c);
    if (route.method === 'GET') app.get(route.path, handler);
    else if (route.method === 'DELETE') app.delete(route.path, handler);
    else app.post(route.path, handler);
  }
  app.get('/openapi.json', (c) => c.body(openapi, 200, { 'Content-Type': 'application/json' }));
  app.get('/.well-known/jwks.json', (c) => c.body(jwks, 200, { 'Content-Type': 'application/jwk-set+json' }));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
}

/** The methods the HTTP API serves at a path (for a 405's Allow); empty when it has no such path. */
export function httpApiMethodsAt(path: string): string[] {
  return ROUTES.filter((r) => r.path === path).map((r) => r.method);
}

async function handle(
  deps: Deps,
  options: HttpOptions,
  errors: ErrorResponseOptions,
  route: Route,
  c: Context<Env>,
) {
  const headers = new Headers();
  const respond = (failure: PpxFailure, tokenPresented?: boolean) =>
    errorResponse(failure, {
      ...errors,
      headers,
      ...(tokenPresented !== undefined ? { tokenPresented } : {}),
    });
  const token = readBearer(c.req.header('authorization'));

  const limited = await limitRequest(deps, 'api', limiterKey(token, c.env.incoming?.socket.remoteAddress));
  if (limited) for (const [k, v] of limited.headers) headers.set(k, v);
  if (limited?.allowed === false) return respond(RATE_LIMITED);

  let caller: Caller | undefined;
  if (route.auth === 'bearer') {
    if (token === undefined || !token.ok) {
      const failure =
        token?.ok === false ? token.error : fail('invalid_token', 'an access token is required').error;
      return respond(failure, token !== undefined);
    }
    const auth = await authenticate(deps, token.value);
    if (!auth.ok) return respond(auth.error);
    caller = auth.value;
  }

  const query = route.query ? parseInput(route.query, c.req.query(), 'the query string') : undefined;
  if (query && !query.ok) return respond(query.error);
  const params = route.params ? parseInput(route.params, c.req.param(), 'the path') : undefined;
  if (params && !params.ok) return respond(params.error);

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
      return respond(uniform(route, raw.error, true));
    }
    const parsed = route.body ? parseInput(route.body, raw.value, 'the request body') : raw;
    if (!parsed.ok) return respond(uniform(route, parsed.error, true));
    body = parsed.value;
  }

  const result = await route.run(deps, { caller, body, query: query?.value, params: params?.value });
  if (!result.ok) return respond(uniform(route, result.error, false));
  headers.set('Content-Type', 'application/json');
  // Profile data is personal, and tokens are secrets: no shared cache may keep either.
  if (route.auth === 'bearer' || route.noStore) headers.set('Cache-Control', 'no-store');
  const status = route.acceptedWhen?.(result.value) ? 202 : (route.successStatus ?? 200);
  // A read's document is shared within its second: its JSON is made once (shared/json-text.ts).
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
