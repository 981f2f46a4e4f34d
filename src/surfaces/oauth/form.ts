import type { Context } from 'hono';
import { fail, ok, type PpxFailure, type Result, statusAtTokenEndpoint } from '../../model/errors.ts';
import type { ClientCredentials } from '../../operations/oauth/clients.ts';
import { readBodyText } from '../shared/body.ts';
import { carriesCors, withCorsHeaders } from '../shared/cors.ts';
import { answerWithSharedHeaders } from '../shared/response-headers.ts';

// Reading OAuth requests and writing OAuth errors: RFC 6749 §3.2 (form bodies), §2.3.1 (client
// credentials), §5.2 (error responses).

/** Security headers of every OAuth JSON answer: tokens and client secrets are never cached (§5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** Reads the body, at most `limit` bytes, through the HTTP surface's one body reader. */
function readText(c: Context, limit: number): Promise<Result<string>> {
  return readBodyText(
    {
      stream: c.env?.incoming ?? c.req.raw.body,
      contentLength: c.req.header('content-length'),
      contentType: c.req.header('content-type'),
    },
    limit,
  );
}

/**
 * The parameters of a token, revocation or introspection request: form-encoded as RFC 6749
 * §3.2 requires, or a JSON object of strings. A parameter sent twice is refused (§3.2).
 */
export async function readParams(c: Context, limit: number): Promise<Result<Record<string, string>>> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = await readText(c, limit);
  if (!text.ok) return text;
  if (type === 'application/x-www-form-urlencoded') {
    // No prototype: `constructor=x` is one parameter, not one that "appears more than once".
    const out: Record<string, string> = Object.create(null);
    for (const [k, v] of new URLSearchParams(text.value)) {
      if (k in out) return fail('invalid_request', `${k} appears more than once`);
      out[k] = v;
    }
    return ok(out);
  }
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = text.value === '' ? {} : JSON.parse(text.value);
    } catch {
      return fail('invalid_request', 'the request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return fail('invalid_request', 'the request body must be a JSON object');
    }
    const entries = Object.entries(parsed);
    if (entries.some(([, v]) => typeof v !== 'string')) {
      return fail('invalid_request', 'every parameter must be a string');
    }
    return ok(Object.fromEntries(entries) as Record<string, string>);
  }
  return fail('unsupported_media_type', 'send application/x-www-form-urlencoded (RFC 6749 §3.2) or JSON');
}

/** RFC 7591 §3.1: the registration request is a JSON object. */
export async function readJson(c: Context, limit: number): Promise<Result<unknown>> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return fail('unsupported_media_type', 'send the client metadata as JSON');
  const text = await readText(c, limit);
  if (!text.ok) return text;
  try {
    return ok(JSON.parse(text.value));
  } catch {
    return fail('invalid_client_metadata', 'the request body is not valid JSON');
  }
}

/**
 * RFC 6749 §2.3.1: HTTP Basic with the form-encoded id and secret, or both in the body; one
 * method only (§2.3: "MUST NOT use more than one authentication method in each request").
 */
export function clientCredentials(c: Context, params: Record<string, string>): Result<ClientCredentials> {
  const header = c.req.header('authorization');
  if (header === undefined || !/^basic /i.test(header)) {
    return ok({ client_id: params['client_id'], client_secret: params['client_secret'] });
  }
  if (params['client_secret'] !== undefined) {
    return fail('invalid_request', 'use one client authentication method, not Basic and client_secret both');
  }
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return fail('invalid_client', 'client authentication failed');
  try {
    const id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    const secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    if (params['client_id'] !== undefined && params['client_id'] !== id) {
      return fail('invalid_client', 'client authentication failed');
    }
    return ok({ client_id: id, client_secret: secret });
  } catch {
    return fail('invalid_client', 'client authentication failed');
  }
}

/** How an endpoint's answers are made: for the provider at `baseUrl`, CORS-open (cors.ts) or not. */
export interface AnswerStyle {
  readonly baseUrl: string;
  readonly cors: boolean;
}

/**
 * RFC 6749 §5.2 error response. `invalid_client` is 401 with a Basic challenge (§5.2: the
 * scheme the client may authenticate with).
 */
export function oauthError(style: AnswerStyle, failure: PpxFailure, dpopNonce?: string): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...NO_STORE };
  // RFC 9449 §8.1: the nonce a proof must carry, on every answer of the token endpoint.
  if (dpopNonce !== undefined) headers['DPoP-Nonce'] = dpopNonce;
  if (failure.code === 'invalid_client') headers['WWW-Authenticate'] = 'Basic realm="ppx", charset="UTF-8"';
  // A body refused for its size may not have been read to the end: the connection closes.
  if (failure.code === 'payload_too_large') headers['Connection'] = 'close';
  const body = JSON.stringify({ error: failure.code, error_description: failure.description });
  return answer(style, body, statusAtTokenEndpoint(failure.code), headers);
}

export function oauthJson(style: AnswerStyle, body: unknown, status = 200, dpopNonce?: string): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...NO_STORE };
  if (dpopNonce !== undefined) headers['DPoP-Nonce'] = dpopNonce;
  return answer(style, JSON.stringify(body), status, headers);
}

/** An answer without a body (RFC 7009 §2.2), never cached. */
export function emptyAnswer(style: AnswerStyle, status: number): Response {
  return answer(style, null, status, { 'Cache-Control': 'no-store' });
}

/**
 * An answer with every header it goes out with (the shared ones, and CORS when the endpoint is
 * open) in one plain object: @hono/node-server then writes it without building a Headers object
 * or a second Response (a tenth of a token refresh's CPU: docs/benchmarks.md, "Issue 27").
 */
function answer(style: AnswerStyle, body: string | null, status: number, headers: Record<string, string>) {
  if (!style.cors) return answerWithSharedHeaders(style.baseUrl, body, status, headers);
  return carriesCors(answerWithSharedHeaders(style.baseUrl, body, status, withCorsHeaders(headers)));
}
