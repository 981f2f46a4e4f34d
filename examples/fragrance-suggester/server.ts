import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ClientError, PendingGrant } from '@ppx-provider/client';
import {
  disconnectedPage,
  endedPage,
  type FormState,
  homePage,
  notFoundPage,
  OCCASIONS,
  outcomeWords,
  problemPage,
  saidNoPage,
  suggestionPage,
} from './pages.ts';
import { accessEnded, Preferences } from './preferences.ts';
import { readProfile } from './suggest.ts';

// The fragrance suggester (README.md): a web app that suggests a scent from a person's preferences,
// read from their PPX provider under a grant they approve. node:http only; sessions in memory.

const APP_URL = (process.env['APP_URL'] ?? 'http://localhost:5173').replace(/\/+$/, '');
const PROVIDER_URL = (process.env['PROVIDER_URL'] ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
const CLIENT_ID = process.env['CLIENT_ID'] ?? 'fragrance-demo';
/** Only prefills the form: a real app would know the person's id from an earlier connection. */
const DEMO_PERSON = process.env['SUBJECT_ID'] ?? 'did:example:user-demo-0001';
const PORT = Number(process.env['PORT'] ?? (new URL(APP_URL).port || 80));
const HOST = process.env['HOST'] ?? '127.0.0.1';

const preferences = new Preferences({
  providerUrl: PROVIDER_URL,
  clientId: CLIENT_ID,
  redirectUri: `${APP_URL}/callback`,
});
const STYLE = readFileSync(join(import.meta.dirname, 'style.css'), 'utf8');

// Chromium checks a form's `form-action` against the redirects its submission follows, so the
// "connect" form, answered by a redirect to the provider's consent page, must name the provider.
const CSP = `default-src 'none'; style-src 'self'; form-action 'self' ${new URL(PROVIDER_URL).origin}; frame-ancestors 'none'; base-uri 'none'`;

interface Session {
  readonly csrf: string;
  subjectId: string;
  /** The consent request waiting for the person's return: kept whole, it holds the PKCE verifier. */
  pending?: PendingGrant;
  grantId?: string;
  /** A message for the next page only (what became of "I liked it"). */
  notice?: string;
}

/** Sessions by cookie, in memory (the oldest dropped past MAX_SESSIONS): a real app keeps them in its database. */
const sessions = new Map<string, Session>();
const MAX_SESSIONS = 1000;
const COOKIE = 'suggester_session';
const COOKIE_VALUE = new RegExp(`(?:^|;\\s*)${COOKIE}=([A-Za-z0-9_-]+)`);

type Answer = { readonly status: number; readonly page: string } | { readonly redirect: string };

const page = (status: number, html: string): Answer => ({ status, page: html });
const formOf = (s: Session): FormState => ({ csrf: s.csrf, subjectId: s.subjectId });

/** GET /: the suggestion when connected, else the invitation to connect. */
async function home(url: URL, s: Session): Promise<Answer> {
  if (s.grantId === undefined) return page(200, homePage(formOf(s)));
  const asked = url.searchParams.get('occasion') ?? '';
  const occasion = OCCASIONS.some(([value]) => value === asked) ? asked : '';
  const profile = await preferences.read(s.grantId, occasion ? { occasion } : undefined);
  if (!profile.ok) return readFailed(profile.error, s);
  const notice = s.notice;
  delete s.notice;
  return page(200, suggestionPage(readProfile(profile.value), occasion, formOf(s), notice));
}

/** POST /connect: asks the provider for a grant and sends the person to its consent page. */
async function connect(form: URLSearchParams, s: Session): Promise<Answer> {
  const subjectId = form.get('subject_id')?.trim() ?? '';
  if (subjectId === '') return page(400, problemPage('Please give your ID at your provider.', formOf(s)));
  s.subjectId = subjectId;
  // Connecting again ends the access this app had: one grant per person, never two.
  if (s.grantId !== undefined) {
    const ended = await preferences.disconnect(s.grantId);
    if (!ended.ok)
      return page(
        502,
        problemPage(`Your provider could not be reached: ${ended.error.description}`, formOf(s)),
      );
    delete s.grantId;
  }
  const pending = await preferences.ask(subjectId);
  if (!pending.ok) {
    return page(
      502,
      problemPage(`Your provider did not take the request: ${pending.error.description}`, formOf(s)),
    );
  }
  s.pending = pending.value;
  return { redirect: pending.value.consentUrl };
}

/** GET /callback: the person is back from the consent page with their decision. */
async function callback(url: URL, s: Session): Promise<Answer> {
  if (s.pending === undefined) {
    return page(400, problemPage('This app was not waiting for an answer from your provider.', formOf(s)));
  }
  const back = await preferences.comeBack(url, s.pending);
  if (!back.ok) {
    if (back.error.code !== 'state_mismatch') delete s.pending;
    return page(502, problemPage(`The connection did not complete: ${back.error.description}`, formOf(s)));
  }
  delete s.pending;
  if (back.value.decision === 'reject') return page(200, saidNoPage(formOf(s)));
  s.grantId = back.value.grantId;
  return { redirect: '/' };
}

/** POST /liked: proposes "likes this family a little more" to the provider, then back to the suggestion. */
async function liked(form: URLSearchParams, s: Session): Promise<Answer> {
  const family = form.get('family') ?? '';
  const name = form.get('name') ?? 'it';
  if (s.grantId === undefined || !/^[a-z_]{1,40}$/.test(family)) return { redirect: '/' };
  // The liking as it is now at the provider, not as the page showed it some time ago.
  const profile = await preferences.read(s.grantId);
  if (!profile.ok) return readFailed(profile.error, s);
  const families = readProfile(profile.value).families;
  if (families === undefined) return { redirect: '/' };
  const r = await preferences.liked(s.grantId, families, family);
  if (!r.ok && accessEnded(r.error)) return readFailed(r.error, s);
  s.notice = r.ok
    ? outcomeWords(r.value, name)
    : r.error.code === 'insufficient_scope'
      ? 'You did not allow this app to suggest changes to your preferences, so nothing was sent.'
      : `Your provider did not take it: ${r.error.description}`;
  return { redirect: '/' };
}

/** POST /disconnect: this app ends its own access at the provider, then forgets it. */
async function disconnect(s: Session): Promise<Answer> {
  if (s.grantId === undefined) return { redirect: '/' };
  const ended = await preferences.disconnect(s.grantId);
  if (!ended.ok) {
    return page(
      502,
      problemPage(`Your provider could not be reached: ${ended.error.description}`, formOf(s)),
    );
  }
  delete s.grantId;
  return page(200, disconnectedPage(formOf(s)));
}

/** A read that failed: the end of the access (the app forgets the grant), or a problem to retry. */
function readFailed(error: ClientError, s: Session): Answer {
  if (!accessEnded(error)) {
    return page(502, problemPage(`Your provider could not be read: ${error.description}`, formOf(s)));
  }
  delete s.grantId;
  return page(200, endedPage(error.code, error.description, formOf(s)));
}

async function route(req: IncomingMessage, s: Session): Promise<Answer | 'style'> {
  const url = new URL(req.url ?? '/', APP_URL);
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (url.pathname === '/') return home(url, s);
    if (url.pathname === '/callback') return callback(url, s);
    if (url.pathname === '/style.css') return 'style';
    return page(404, notFoundPage());
  }
  if (req.method !== 'POST') return page(405, notFoundPage());
  const form = await readForm(req);
  if (form === undefined || !sameSecret(form.get('csrf') ?? '', s.csrf)) {
    return page(403, problemPage('This form had expired. Please try again.', formOf(s)));
  }
  if (url.pathname === '/connect') return connect(form, s);
  if (url.pathname === '/liked') return liked(form, s);
  if (url.pathname === '/disconnect') return disconnect(s);
  return page(404, notFoundPage());
}

/** The session of this browser, or a new one (with its cookie set on the answer). */
function sessionOf(req: IncomingMessage, res: ServerResponse): Session {
  const id = COOKIE_VALUE.exec(req.headers.cookie ?? '')?.[1];
  const known = id === undefined ? undefined : sessions.get(id);
  if (known) return known;
  const fresh = randomBytes(24).toString('base64url');
  const s: Session = { csrf: randomBytes(24).toString('base64url'), subjectId: DEMO_PERSON };
  sessions.set(fresh, s);
  if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
  // SameSite=Lax: sent on the person's return from the provider (a top-level GET), not on a
  // form another site posts here. Add `Secure` when the app is served over https.
  res.setHeader('set-cookie', `${COOKIE}=${fresh}; HttpOnly; SameSite=Lax; Path=/`);
  return s;
}

/** A url-encoded form body (16 KiB at most), or undefined. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return undefined;
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 16_384) return undefined;
  }
  return new URLSearchParams(body);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const server = createServer(async (req, res) => {
  const s = sessionOf(req, res);
  let answer: Answer | 'style';
  try {
    answer = await route(req, s);
  } catch (e) {
    console.error(e);
    answer = page(500, problemPage('This app failed. Please try again.', formOf(s)));
  }
  if (answer === 'style') {
    res.writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=3600' });
    res.end(STYLE);
  } else if ('redirect' in answer) {
    res.writeHead(303, { location: answer.redirect, 'cache-control': 'no-store' }).end();
  } else {
    res.writeHead(answer.status, {
      'content-type': 'text/html; charset=utf-8',
      // The pages show the person's preferences: never kept by a shared cache.
      'cache-control': 'no-store',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : answer.page);
  }
});

server.listen(PORT, HOST, () => {
  console.log(`Fragrance suggester on ${APP_URL} (provider ${PROVIDER_URL}, client ${CLIENT_ID})`);
});
