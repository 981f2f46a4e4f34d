import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSubject, openSession } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { formFields } from '../../support/oauth-flow.ts';
import type { TestProvider } from '../../support/provider.ts';
import { cookieFrom, hiddenField, signInOverHttp } from '../../support/web-session.ts';

// Shared by the attack tests (test/e2e/attacks): accounts signed in over plain HTTP, form posts
// with exactly the cookies and headers a test chooses, and a page "on another site" served by a
// real listener on loopback. Not a *.test.ts file.

export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A person with an account, signed in: the session cookie value and the session's CSRF token. */
export interface SignedIn {
  readonly username: string;
  readonly password: string;
  readonly session: string;
  readonly csrf: string;
}

/** Creates an account (for `subjectId`, or a profile of its own) and signs it in over HTTP. */
export async function accountSignedIn(
  p: TestProvider,
  username: string,
  subjectId?: string,
): Promise<SignedIn> {
  const password = `${username}-password-1`;
  const created = await createSubject(p.deps, {
    username,
    password,
    ...(subjectId !== undefined ? { subject_id: subjectId } : {}),
  });
  assert.ok(created.ok || created.error.code === 'conflict');
  const { session, csrf } = await signInOverHttp(p.url, username, password);
  return { username, password, session, csrf };
}

/**
 * A new session for a subject without the password step (no scrypt: fast enough to open one per
 * attempt), and its CSRF token as the signed-in page shows it.
 */
export async function newSession(
  p: TestProvider,
  subjectId: string,
): Promise<{ session: string; csrf: string }> {
  const { secret } = await openSession(p.deps, subjectId);
  const page = await fetch(`${p.url}/signin`, { headers: { cookie: `ppx_session=${secret}` } });
  const csrf = hiddenField(await page.text(), 'csrf');
  assert.ok(csrf, 'the signed-in page carries the session token');
  return { session: secret, csrf };
}

/** A fresh pre-session form (sign-in or sign-up): its CSRF cookie and the token in the page. */
export async function preSessionForm(
  p: TestProvider,
  path = '/signin',
): Promise<{ cookie: string; token: string }> {
  const page = await fetch(p.url + path);
  assert.equal(page.status, 200);
  const cookie = cookieFrom(page, 'ppx_csrf');
  const token = hiddenField(await page.text(), 'csrf');
  assert.ok(cookie && token);
  return { cookie, token };
}

export interface Post {
  readonly fields?: readonly [string, string][];
  readonly json?: unknown;
  readonly cookies?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A POST with exactly these cookies and headers, redirects not followed. */
export function post(p: TestProvider, path: string, req: Post): Promise<Response> {
  const headers: Record<string, string> = { ...req.headers };
  const cookies = Object.entries(req.cookies ?? {}).map(([k, v]) => `${k}=${v}`);
  if (cookies.length > 0) headers['cookie'] = cookies.join('; ');
  let body: string | undefined;
  if (req.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(req.json);
  } else {
    headers['content-type'] ??= FORM_TYPE;
    body = new URLSearchParams(req.fields ? [...req.fields] : []).toString();
  }
  return fetch(p.url + path, { method: 'POST', redirect: 'manual', headers, body });
}

/** Whether a session cookie value still opens a session (the signed-in page, not the form). */
export async function sessionAlive(p: TestProvider, session: string): Promise<boolean> {
  const page = await fetch(`${p.url}/signin`, { headers: { cookie: `ppx_session=${session}` } });
  return /You are signed in/.test(await page.text());
}

/** A page on another origin: a real HTTP listener on loopback that answers every GET with `html`. */
export interface Site {
  /** http://<host>:<port> as the browser is sent to it. */
  readonly origin: string;
  /** Every request the listener received (method and path). */
  readonly hits: string[];
  close(): Promise<void>;
}

export async function serveSite(
  host: 'localhost' | '127.0.0.1',
  html: (req: IncomingMessage) => string,
): Promise<Site> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html(req));
  });
  // Bound to 127.0.0.1 either way: `localhost` is only the name the browser is given, and a
  // different host name makes a different site (SameSite cookies stay home).
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Text with HTML's five special characters escaped, for a test page's own markup. */
export function escapeForPage(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The decision form of a consent page as a browser would submit it (every box as shown), with
 * `decision` added: the fields of a genuine "Allow" or "Reject".
 */
export async function decisionFields(
  p: TestProvider,
  consentPath: string,
  session: string,
  decision: string,
): Promise<[string, string][]> {
  const page = await fetch(p.url + consentPath, { headers: { cookie: `ppx_session=${session}` } });
  const html = await page.text();
  assert.equal(page.status, 200, html);
  const form = /<form method="post" action="\/consent\/[^"]+\/decision">([\s\S]*?)<\/form>/.exec(html);
  assert.ok(form, 'the page has a decision form');
  return [...formFields(form[1]!), ['decision', decision]];
}
