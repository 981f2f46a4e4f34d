import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { assertError } from './http-api.ts';
import { type ApiResponse, api, type TestProvider } from './provider.ts';

// The consent flow (WIRE-NOTES §2) driven over HTTP, one step per function, so that each test can
// break exactly one thing and keep the rest genuine.

/** The redirect URI registered for the public demo client `fragrance-demo`. */
export const REDIRECT = 'http://localhost:5173/callback';

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

/** A fresh PKCE pair: a 43-character verifier and its S256 challenge. */
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  assert.ok(verifier.length >= 43);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A valid request body for the demo subject, `fragrance-demo`, core + fragrance, read + query. */
export function requestBody(p: TestProvider, challenge: string, over: Record<string, unknown> = {}) {
  return {
    client_id: 'fragrance-demo',
    subject_id: p.subjectId,
    purposes: ['recommendation'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_operations: ['read', 'query'],
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...over,
  };
}

export interface Pending {
  readonly id: string;
  readonly requestToken: string;
  readonly verifier: string;
  readonly clientId: string;
  readonly response: ApiResponse;
}

/** Step 1: asks for a grant; asserts the 201. */
export async function ask(p: TestProvider, over: Record<string, unknown> = {}): Promise<Pending> {
  const { verifier, challenge } = pkce();
  const body = requestBody(p, challenge, over);
  const r = await api(p.url, '/v1/consent/request', { body });
  assert.equal(r.status, 201, r.text);
  return {
    id: r.json.grant_request_id,
    requestToken: r.json.request_token,
    verifier,
    clientId: body.client_id,
    response: r,
  };
}

/** Step 2: approves (optionally narrowed) with a subject token, the demo subject's by default. */
export function approve(
  p: TestProvider,
  id: string,
  options: { token?: string; narrow?: Record<string, unknown> } = {},
): Promise<ApiResponse> {
  return api(p.url, '/v1/consent/approve', {
    token: options.token ?? p.subjectToken,
    body: { grant_request_id: id, ...(options.narrow ? { narrow: options.narrow } : {}) },
  });
}

export function reject(p: TestProvider, id: string, token = p.subjectToken): Promise<ApiResponse> {
  return api(p.url, '/v1/consent/reject', { token, body: { grant_request_id: id } });
}

/** The genuine exchange body of a pending request. */
export function exchangeBody(pending: Pending): Record<string, unknown> {
  return {
    grant_request_id: pending.id,
    request_token: pending.requestToken,
    code_verifier: pending.verifier,
    client_id: pending.clientId,
  };
}

/** Step 3: the exchange, with the genuine body changed by `over` (`undefined` drops a field). */
export function exchange(
  p: TestProvider,
  pending: Pending,
  over: Record<string, unknown> = {},
): Promise<ApiResponse> {
  const body: Record<string, unknown> = { ...exchangeBody(pending), ...over };
  for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
  return api(p.url, '/v1/consent/token', { body });
}

export function refresh(p: TestProvider, refreshToken: string, clientId = 'fragrance-demo') {
  return api(p.url, '/v1/consent/refresh', {
    body: { client_id: clientId, refresh_token: refreshToken },
  });
}

/** Steps 1–3 done right: the tokens of a fresh grant. */
export async function granted(
  p: TestProvider,
  over: Record<string, unknown> = {},
  narrow?: Record<string, unknown>,
) {
  const pending = await ask(p, over);
  const a = await approve(p, pending.id, narrow ? { narrow } : {});
  assert.equal(a.status, 200, a.text);
  const t = await exchange(p, pending);
  assert.equal(t.status, 200, t.text);
  return {
    pending,
    grantId: t.json.grant_id as string,
    access: t.json.access_token as string,
    refresh: t.json.refresh_token as string | undefined,
    response: t,
  };
}

/** The demo subject's grants as listed to its owner. */
export async function grantsOf(p: TestProvider, token = p.subjectToken) {
  const r = await api(p.url, '/v1/consent/grants', { token });
  assert.equal(r.status, 200, r.text);
  return r.json.grants as { grant_id: string; status: string }[];
}

/** One grant's status as its owner sees it. */
export async function statusOf(p: TestProvider, grantId: string): Promise<string | undefined> {
  return (await grantsOf(p)).find((g) => g.grant_id === grantId)?.status;
}

/** A read with a grant token: the effective profile. */
export function readEffective(p: TestProvider, token: string): Promise<ApiResponse> {
  return api(p.url, '/v1/profile/effective', { token, body: {} });
}

/** A spent refresh token presented again: invalid_grant, saying the access ended because of it. */
export function assertReuseRefused(r: ApiResponse): void {
  assertInvalidGrant(r);
  assert.match(r.json.error_description, /already used once; presenting it again ended this access/);
}

/** The uniform failure of the token and refresh endpoints (WIRE-NOTES §2.3). */
export function assertInvalidGrant(r: ApiResponse, description?: string): void {
  assertError(r, 400, 'invalid_grant');
  assert.deepEqual(Object.keys(r.json).sort(), ['error', 'error_description']);
  if (description !== undefined) assert.equal(r.json.error_description, description);
  assert.equal(r.headers.get('cache-control'), 'no-store');
}
