import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { ok, type PpxFailure, type Result } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import type { Caller } from '../../operations/callers/caller.ts';
import type { RequestFacts } from '../../operations/catalog/index.ts';
import type { Deps } from '../../operations/deps.ts';
import { precheckGrant } from '../../operations/grants/access-check.ts';
import { checkProof, currentNonce } from '../../operations/tokens/dpop-proof.ts';
import { readJsonBody } from '../shared/body.ts';
import { tokenEndpointRefusal } from '../shared/challenge.ts';
import { corsAnswerHeaders, openCors } from '../shared/cors.ts';
import { ppxRefusal } from '../shared/errors.ts';
import { API, FrontDoor } from '../shared/front-door.ts';
import { jsonBytes } from '../shared/json-text.ts';
import { answerWithSharedHeaders } from '../shared/response-headers.ts';
import { openApiDocument } from './openapi.ts';
import { ROUTES, type Route } from './route.ts';

// The PPX HTTP binding (bindings/http.md): every route of the table runs through one pipeline of
// named steps (the front door: rate limit and bearer auth -> what the grant refuses ->
// query/path/body parse -> a token endpoint's DPoP proof -> operation -> response), and
// the OpenAPI document is generated from the same list (route.ts). Mounted by the composition root
// (src/server.ts).

export interface HttpOptions {
  readonly bodyLimitBytes: number;
}

type Env = { Bindings: HttpBindings };

/**
 * Where an app's page may call from another origin: everything under /v1 and every other route of
 * the table (the discovery card), the keys the card names (`grant_jwks_uri`) and the API's
 * description. The pipeline builds the policy's headers into its answers (`corsAnswerHeaders`).
 */
const CORS_PATHS = [
  ...new Set([
    '/v1/*',
    ...ROUTES.map((r) => r.http.path).filter((path) => !path.startsWith('/v1/')),
    '/.well-known/jwks.json',
    '/openapi.json',
  ]),
];

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;

export function mountHttpApi(app: App, deps: Deps, options: HttpOptions): void {
  const openapi = JSON.stringify(openApiDocument(deps.provider, ROUTES));
  const jwks = JSON.stringify({ keys: [deps.tokens.publicJwk] });
  const door = new FrontDoor(deps, API);
  // An app's page on another origin discovers the provider and calls the API with its tokens
  // (shared/cors.ts says why that is safe). Everything under /v1, AG-UI's review run included (a
  // run on the browser session is refused from another origin whatever CORS says): registered
  // here, before any /v1 route, so that a preflight is answered before the front door.
  for (const path of CORS_PATHS) app.use(path, openCors);
  for (const route of ROUTES) {
    const handler = (c: Context<Env>) => handle(deps, options, door, route, c);
    const { method, path } = route.http;
    if (method === 'GET') app.get(path, handler);
    else if (method === 'DELETE') app.delete(path, handler);
    else app.post(path, handler);
  }
  app.get('/openapi.json', (c) => c.body(openapi, 200, { 'Content-Type': 'application/json' }));
  app.get('/.well-known/jwks.json', (c) => c.body(jwks, 200, { 'Content-Type': 'application/jwk-set+json' }));
}

async function handle(
  deps: Deps,
  options: HttpOptions,
  door: FrontDoor<Caller>,
  route: Route,
  c: Context<Env>,
) {
  const entry = await door.enter(deps, c, route.auth === 'bearer' ? 'required' : 'none');
  const headers: (readonly [string, string])[] = [...entry.headers, ...corsAnswerHeaders(c.req.raw)];
  if (!entry.ok) return ppxRefusal(entry.refusal, headers);
  const caller = entry.caller;
  const { operation, http } = route;
  const tokenEndpoint = http.dpop === 'token-endpoint';
  // RFC 9449 §8.1: a token endpoint's every answer names the nonce proofs must carry (when asked).
  const nonce = tokenEndpoint ? currentNonce(deps) : undefined;
  if (nonce !== undefined) headers.push(['DPoP-Nonce', nonce]);
  const respond = (failure: PpxFailure) =>
    ppxRefusal(tokenEndpoint ? tokenEndpointRefusal(failure) : entry.refuse(failure), headers);

  // WIRE-NOTES §2.7: the token, then what the grant refuses whatever the body holds, then the body.
  if (caller) {
    const allowed = await precheckGrant(deps, caller, operation.grant, operation.name);
    if (!allowed.ok) return respond(allowed.error);
  }

  const input = await readInput(c, route, options.bodyLimitBytes, headers);
  if (!input.ok) return respond(input.error);

  const facts = await requestFacts(deps, c, route);
  if (!facts.ok) return respond(facts.error);

  const result = await operation.run(deps, caller, input.value, facts.value);
  if (!result.ok) return respond(uniform(route, result.error, false));
  const plain: Record<string, string> = {};
  for (const [k, v] of headers) plain[k] = v;
  plain['Content-Type'] = 'application/json';
  // Profile data is personal, and tokens are secrets: no shared cache may keep either.
  if (route.auth === 'bearer' || http.noStore) plain['Cache-Control'] = 'no-store';
  const status = http.acceptedWhen?.(result.value) ? 202 : (http.successStatus ?? 200);
  // A read's document is shared within its second: its JSON is made once, as UTF-8
  // (shared/json-text.ts), and goes out as those very bytes. As text, Node would have prefixed it
  // with the response head and flattened the two into a new string of the body's size.
  const body = jsonBytes(result.value, http.answerDepth ?? 1);
  return answerWithSharedHeaders(deps.provider.baseUrl, body, status, plain);
}

/**
 * What the operation learns from the request besides its input: on a token endpoint route, the
 * key of a `DPoP` header's proof (RFC 9449 §5: for this method and URL, fresh, single-use, no
 * `ath` since there is no access token yet). A bad proof refuses the request before the
 * operation runs, so it spends nothing; no header is no proof (the operation decides whether the
 * client may go without).
 */
async function requestFacts(deps: Deps, c: Context<Env>, route: Route): Promise<Result<RequestFacts>> {
  const header = route.http.dpop === 'token-endpoint' ? c.req.header('dpop') : undefined;
  if (header === undefined) return ok({});
  const proof = await checkProof(deps, header, { method: route.http.method, path: route.http.path });
  return proof.ok ? ok({ dpop: { jkt: proof.value.jkt } }) : proof;
}

/** The operation's input, parsed with its own schema from where the route binds it. */
async function readInput(
  c: Context<Env>,
  route: Route,
  bodyLimitBytes: number,
  headers: (readonly [string, string])[],
): Promise<Result<unknown>> {
  const schema = route.operation.input;
  switch (route.http.input) {
    case 'none':
      return parseInput(schema, {}, 'the request');
    case 'query':
      return parseInput(schema, c.req.query(), 'the query string');
    case 'path':
      return parseInput(schema, c.req.param(), 'the path');
    case 'body': {
      // Read straight from Node's request when there is one: it skips building a web stream.
      const raw = await readJsonBody(
        {
          stream: c.env.incoming ?? c.req.raw.body,
          contentLength: c.req.header('content-length'),
          contentType: c.req.header('content-type'),
        },
        bodyLimitBytes,
      );
      if (!raw.ok) {
        // A body refused for its size may not have been read to the end: the connection cannot
        // be reused safely, so tell the client it closes.
        if (raw.error.code === 'payload_too_large') headers.push(['Connection', 'close']);
        return { ok: false, error: uniform(route, raw.error, true) };
      }
      const parsed = parseInput(schema, raw.value, 'the request body');
      return parsed.ok ? parsed : { ok: false, error: uniform(route, parsed.error, true) };
    }
  }
}

/**
 * A route with a uniform failure answers it for every unreadable or invalid body (except one too
 * large or not JSON) and for every operation failure of the same code, so nothing tells which
 * check or field failed.
 */
function uniform(route: Route, failure: PpxFailure, fromBody: boolean): PpxFailure {
  const u = route.http.uniformFailure;
  if (u === undefined) return failure;
  if (fromBody) {
    const transport = failure.code === 'payload_too_large' || failure.code === 'unsupported_media_type';
    return transport ? failure : u;
  }
  if (route.http.uniformFailureFor === 'body') return failure;
  return failure.code === u.code ? u : failure;
}
