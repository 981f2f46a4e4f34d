import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { decodeJwt } from 'jose';
import {
  codeRequest,
  formFields,
  get,
  pkce,
  postForm,
  publicClient,
  REDIRECT,
  signedInCookie,
} from './oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from './provider.ts';

// Grant packages driven over plain HTTP, as a browser and a client would (WIRE-NOTES §4): one
// authorization with several authorization_details → one consent page → one code → one package
// token. Not a *.test.ts file.

/** A `ppx_grant` element reading core and one domain's namespace. */
function readDetail(detailId: string, domain: string) {
  return {
    type: 'ppx_grant',
    detail_id: detailId,
    purposes: ['recommendation'],
    allowed_domains: [domain],
    allowed_namespaces: ['core', domain],
    allowed_operations: ['read', 'query'],
  };
}

export const FRAGRANCE = readDetail('fragrance-reco', 'fragrance');
export const TRAVEL = readDetail('travel-reco', 'travel');

export type Detail = Record<string, unknown>;

export interface PackageSetup {
  readonly p: TestProvider;
  /** The demo subject's signed-in session (a Cookie header). */
  readonly cookie: string;
  /** A registered public client redirecting to REDIRECT. */
  readonly client: string;
}

/** Registers the suite's hooks: a fresh provider, signed in, with a client, handed to `use`. */
export function packageSuite(use: (setup: PackageSetup) => void): void {
  let provider: TestProvider | undefined;
  before(async () => {
    provider = await startTestProvider();
    use({ p: provider, cookie: await signedInCookie(provider), client: await publicClient(provider) });
  });
  after(() => provider?.close());
}

/** The authorization request for `details`, for the HTTP API (resource = the base URL) unless overridden. */
export function packageRequest(
  p: TestProvider,
  clientId: string,
  challenge: string,
  details: readonly Detail[],
  over: Record<string, string | undefined> = {},
): string {
  return codeRequest(p, clientId, challenge, {
    authorization_details: JSON.stringify(details),
    resource: p.deps.provider.baseUrl,
    ...over,
  });
}

export interface OpenPackage {
  /** The consent page the authorization sent the browser to (the first element's). */
  readonly consent: URL;
  readonly html: string;
  /** The decision form's action and the fields a browser would submit as the page stands. */
  readonly action: URL;
  readonly fields: URLSearchParams;
  readonly verifier: string;
}

/** authorize → 302 /consent/<id> → the package page. */
export async function openPackage(
  p: TestProvider,
  cookie: string,
  clientId: string,
  details: readonly Detail[] = [FRAGRANCE, TRAVEL],
): Promise<OpenPackage> {
  const { verifier, challenge } = pkce();
  const a = await get(packageRequest(p, clientId, challenge, details), cookie);
  assert.equal(a.status, 302, await a.text());
  const consent = new URL(a.headers.get('location')!, p.url);
  assert.match(consent.pathname, /^\/consent\/gr_/, consent.href);
  const page = await get(consent.href, cookie);
  const html = await page.text();
  assert.equal(page.status, 200, html);
  return { consent, html, verifier, ...decisionForm(html, consent) };
}

/** The decision form of a consent page. */
export function decisionForm(html: string, base: URL): { action: URL; fields: URLSearchParams } {
  const form = /<form method="post" action="(\/consent\/[^"]+\/decision)">([\s\S]*?)<\/form>/.exec(html);
  assert.ok(form, 'the page has a decision form');
  return { action: new URL(form[1]!, base), fields: formFields(form[2]!) };
}

/** Posts the decision form as the browser would (same origin). */
export async function postDecision(action: URL, cookie: string, body: URLSearchParams) {
  const r = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: action.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: r.status, location: r.headers.get('location'), html: await r.text() };
}

/**
 * The whole browser part: open the package, let `edit` change the fields (untick, decline),
 * confirm, and return where the browser was sent.
 */
export async function decidePackage(
  p: TestProvider,
  cookie: string,
  clientId: string,
  details: readonly Detail[] = [FRAGRANCE, TRAVEL],
  edit: (fields: URLSearchParams) => void = () => undefined,
) {
  const open = await openPackage(p, cookie, clientId, details);
  edit(open.fields);
  open.fields.set('decision', 'decide');
  const posted = await postDecision(open.action, cookie, open.fields);
  assert.equal(posted.status, 303, posted.html);
  return { ...open, back: new URL(posted.location!) };
}

/** POST /oauth/token with the code of a decided package. */
export function exchangeCode(p: TestProvider, clientId: string, code: string, verifier: string) {
  return postForm(`${p.url}/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
}

/** Decide (as `edit` says) and exchange: the token response of the package. */
export async function packageTokens(
  p: TestProvider,
  cookie: string,
  clientId: string,
  details: readonly Detail[] = [FRAGRANCE, TRAVEL],
  edit?: (fields: URLSearchParams) => void,
) {
  const decided = await decidePackage(p, cookie, clientId, details, edit);
  const code = decided.back.searchParams.get('code');
  assert.ok(code, decided.back.href);
  const tokens = await exchangeCode(p, clientId, code, decided.verifier);
  assert.equal(tokens.status, 200, tokens.text);
  return { ...decided, code, tokens: tokens.json };
}

export function refresh(p: TestProvider, clientId: string, refreshToken: string) {
  return postForm(`${p.url}/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

/** A JWT's payload, unverified (the tests read what the provider put there). */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
export function payload(jwt: string): any {
  return decodeJwt(jwt);
}

export interface GrantView {
  readonly grant_id: string;
  readonly status: string;
  readonly expires_at?: string;
  readonly allowed_namespaces: string[];
  readonly allowed_domains: string[];
}

/** The subject's grants, by id (GET /v1/consent/grants with the subject token). */
export async function subjectGrants(p: TestProvider): Promise<Map<string, GrantView>> {
  const r = await api(p.url, '/v1/consent/grants', { token: p.subjectToken });
  assert.equal(r.status, 200, r.text);
  return new Map((r.json.grants as GrantView[]).map((g) => [g.grant_id, g]));
}

/** A package child's grant id (WIRE-NOTES §4): the PPX grant id without its `ppx:grant:` prefix. */
export const CHILD_ID = /^[A-Za-z0-9._~-]+$/;

/** The grant ids of the package's outcomes, in detail order: child ids, each checked against the grammar. */
export function outcomeGrants(tokens: { pdpp_detail_outcomes: { grant_ids: string[] }[] }): string[] {
  const ids = tokens.pdpp_detail_outcomes.flatMap((o) => o.grant_ids);
  for (const id of ids) assert.match(id, CHILD_ID, `an outcome's grant id is a child id: ${id}`);
  return ids;
}

/** The same grants as PPX grant ids, as the PPX HTTP API, the store and the token's claims name them. */
export function outcomePpxGrants(tokens: { pdpp_detail_outcomes: { grant_ids: string[] }[] }): string[] {
  return outcomeGrants(tokens).map((id) => `ppx:grant:${id}`);
}

/** The consent request ids of a package page, in element order (the hidden `e<i>.request` fields). */
export function memberIds(fields: URLSearchParams): string[] {
  return [...fields.keys()].filter((k) => /^e\d+\.request$/.test(k)).map((k) => fields.get(k)!);
}
