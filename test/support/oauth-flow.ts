import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createSubject, signIn } from '../../src/operations/accounts/subjects-and-sessions.ts';
import { startTestProvider, type TestProvider } from './provider.ts';

// The OAuth flow driven by plain fetch, as a browser and a client would: one helper per step.

export const REDIRECT = 'http://localhost:7777/callback';

/** startTestProvider, with the operator's development flag for client metadata documents. */
export async function startDevProvider(): Promise<TestProvider> {
  return startTestProvider({ env: { PPX_DEV_ALLOW_HTTP_CLIENT_METADATA: '1' } });
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An account for the demo subject and a signed-in session; returns the Cookie header. */
export async function signedInCookie(p: TestProvider, username = 'demo-owner'): Promise<string> {
  const password = 'a-long-enough-password';
  const created = await createSubject(p.deps, { username, password, subject_id: p.subjectId });
  assert.ok(created.ok || created.error.code === 'conflict');
  const session = await signIn(p.deps, username, password);
  assert.ok(session.ok);
  return `ppx_session=${session.value.secret}`;
}

export async function register(p: TestProvider, metadata: Record<string, unknown>) {
  const r = await fetch(`${p.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  return { status: r.status, headers: r.headers, json: (await r.json()) as any };
}

export async function publicClient(p: TestProvider): Promise<string> {
  const r = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
  assert.equal(r.status, 201);
  return r.json.client_id;
}

export function authorizeUrl(p: TestProvider, params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return `${p.url}/oauth/authorize?${q}`;
}

/** A complete, valid authorization request for a client (override or drop fields with undefined). */
export function codeRequest(
  p: TestProvider,
  clientId: string,
  challenge: string,
  over: Record<string, string | undefined> = {},
) {
  return authorizeUrl(p, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    scope: 'ppx:read ppx:query',
    ...over,
  });
}

export function get(url: string, cookie?: string) {
  return fetch(url, { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });
}

/**
 * The browser part: authorize → consent page → "Allow" with every box as shown → 303 to the
 * client's redirect_uri. Returns that URL (code, state, iss).
 */
export async function consentInBrowser(
  authorize: string,
  cookie: string,
  decision = 'approve',
): Promise<URL> {
  const a = await get(authorize, cookie);
  assert.equal(a.status, 302, await a.text());
  const consent = new URL(a.headers.get('location')!, authorize);
  assert.match(consent.pathname, /^\/consent\/gr_/);
  const page = await get(consent.href, cookie);
  assert.equal(page.status, 200);
  const html = await page.text();
  const form = /<form method="post" action="(\/consent\/[^"]+\/decision)">([\s\S]*?)<\/form>/.exec(html);
  assert.ok(form, 'the consent page has a decision form');
  const body = formFields(form[2]!);
  body.append('decision', decision);
  const posted = await fetch(new URL(form[1]!, consent).href, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: consent.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  assert.equal(posted.status, 303, await posted.text());
  return new URL(posted.headers.get('location')!);
}

/** What a browser would submit: hidden fields, ticked boxes and radios, selected options. */
export function formFields(html: string): URLSearchParams {
  const out = new URLSearchParams();
  const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  for (const [tag] of html.matchAll(/<input\b[^>]*>/g)) {
    const type = attr(tag, 'type') ?? 'text';
    const name = attr(tag, 'name');
    if (name === undefined) continue;
    if ((type === 'checkbox' || type === 'radio') && !/\schecked\b/.test(tag)) continue;
    out.append(name, decode(attr(tag, 'value') ?? 'on'));
  }
  for (const [, name, options] of html.matchAll(/<select\b[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected =
      /<option\b[^>]*value="([^"]*)"[^>]*\sselected\b/.exec(options!) ??
      /<option\b[^>]*value="([^"]*)"/.exec(options!);
    if (selected) out.append(name!, decode(selected[1]!));
  }
  return out;
}

function decode(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** POST to the token (or revocation, introspection) endpoint, form-encoded per RFC 6749 §3.2. */
export async function postForm(
  url: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  const text = await r.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}

export function basic(id: string, secret: string): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
  };
}

/** The browser part of the code flow: returns the redirect back, its code and the PKCE verifier. */
export async function authorizeCode(
  p: TestProvider,
  cookie: string,
  clientId: string,
  over: Record<string, string | undefined> = {},
) {
  const { verifier, challenge } = pkce();
  const back = await consentInBrowser(codeRequest(p, clientId, challenge, over), cookie);
  const code = back.searchParams.get('code');
  assert.ok(code, back.href);
  return { back, code, verifier };
}

/** Runs the whole code flow for a public client; returns the token response and the verifier. */
export async function codeFlow(
  p: TestProvider,
  cookie: string,
  clientId: string,
  over: Record<string, string | undefined> = {},
) {
  const { back, code, verifier } = await authorizeCode(p, cookie, clientId, over);
  const tokens = await postForm(`${p.url}/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  return { back, code, verifier, tokens };
}
