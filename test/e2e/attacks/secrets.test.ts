import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../../src/auth/passwords.ts';
import { safeEqual, sha256 } from '../../../src/auth/secrets.ts';
import { registerClient } from '../../../src/operations/accounts/clients.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { sameToken } from '../../../src/surfaces/shared/session.ts';
import { testClock } from '../../support/clock.ts';
import { ask, exchange, granted, refresh } from '../../support/consent-flow.ts';
import { authorizeCode, basic, postForm, REDIRECT, register } from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { cookieFrom, hiddenField, signInOverHttp } from '../../support/web-session.ts';
import { newSession, post, preSessionForm } from './helpers.ts';
import { everyCell, rawBytes } from './stored.ts';

// Secrets at rest and secret guessing. After a full flow on every surface (sign-up, sign-in,
// consent-v2, the OAuth code flow with a confidential client, refresh), every table, column and
// row of the store, and the raw bytes they are kept in (the SQLite file and its WAL, or the
// PostgreSQL schema's pages: stored.ts), are searched for every plaintext secret the flow
// handled: none may be there, only their hashes (shown present, so the search reads the right
// database). The comparisons of secrets are constant-time (unit and static
// checks), and guessing is rate limited: sign-in, the token endpoints, registration, each with a
// 429, its code and Retry-After, for every spelling of the same caller.

describe('secrets are stored only as hashes', () => {
  let p: TestProvider;
  const logs: string[] = [];
  /** Every plaintext secret the flow handled, by what it is. */
  const secrets = new Map<string, string>();
  /** Hashes that must be there (the search reads the right file). */
  const hashes = new Map<string, string>();

  before(async () => {
    p = await startTestProvider({ env: { PPX_ENABLE_SIGNUP: '1' }, log: (m) => logs.push(m) });

    // Accounts: one made by the operator's code path, one by sign-up on the page.
    const ownerPassword = `owner-${randomBytes(18).toString('base64url')}`;
    assert.ok(
      (
        await createSubject(p.deps, {
          username: 'secret-owner',
          password: ownerPassword,
          subject_id: DEMO_SUBJECT,
        })
      ).ok,
    );
    secrets.set('password (account)', ownerPassword);
    const signup = await preSessionForm(p, '/signup');
    secrets.set('pre-session CSRF token', signup.token);
    const newcomerPassword = `newcomer-${randomBytes(18).toString('base64url')}`;
    const created = await post(p, '/signup', {
      fields: [
        ['csrf', signup.token],
        ['username', 'secret-newcomer'],
        ['password', newcomerPassword],
        ['password_again', newcomerPassword],
      ],
      cookies: { ppx_csrf: signup.cookie },
    });
    assert.equal(created.status, 303);
    secrets.set('password (sign-up)', newcomerPassword);
    secrets.set('session secret (sign-up)', cookieFrom(created, 'ppx_session')!);

    // A browser session and its CSRF token.
    const { session, csrf } = await signInOverHttp(p.url, 'secret-owner', ownerPassword);
    secrets.set('session secret', session);
    secrets.set('session CSRF token', csrf);
    hashes.set('session hash', sha256(session));

    // consent-v2: request token, PKCE verifier, access and refresh tokens, a rotated refresh token.
    const flow = await granted(p);
    secrets.set('request token', flow.pending.requestToken);
    secrets.set('PKCE verifier', flow.pending.verifier);
    secrets.set('access token (consent-v2)', flow.access);
    secrets.set('refresh token, rotated', flow.refresh!);
    hashes.set('request token hash', sha256(flow.pending.requestToken));
    const rotated = await refresh(p, flow.refresh!);
    assert.equal(rotated.status, 200, rotated.text);
    secrets.set('refresh token (consent-v2)', rotated.json.refresh_token);
    // A refresh token is kept in no form at all, not even hashed: its family's chain keeps the
    // generation it reached and the key its tokens are made with (auth/refresh-chain.ts), a
    // server secret like the token signing key.
    // A request approved but never exchanged keeps its request token only hashed, too.
    const waiting = await ask(p);
    secrets.set('request token (pending)', waiting.requestToken);

    // Client secrets: self-registered (RFC 7591) and operator-registered.
    const dcr = await register(p, { redirect_uris: [REDIRECT], client_name: 'Secret keeper' });
    assert.equal(dcr.status, 201);
    const clientId = dcr.json.client_id as string;
    const clientSecret = dcr.json.client_secret as string;
    secrets.set('client secret (registered)', clientSecret);
    hashes.set('client secret hash', sha256(clientSecret));
    const operatorSecret = `operator-${randomBytes(24).toString('base64url')}`;
    assert.ok(
      (
        await registerClient(p.deps, {
          client_id: 'secret-operator-app',
          name: 'Operator app',
          redirect_uris: [REDIRECT],
          kind: 'confidential',
          secret: operatorSecret,
        })
      ).ok,
    );
    secrets.set('client secret (operator)', operatorSecret);

    // OAuth: an authorization code exchanged by the confidential client, its tokens, a refresh.
    const cookie = `ppx_session=${session}`;
    const { code, verifier } = await authorizeCode(p, cookie, clientId);
    secrets.set('authorization code', code);
    secrets.set('PKCE verifier (OAuth)', verifier);
    const tokens = await postForm(
      `${p.url}/oauth/token`,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      basic(clientId, clientSecret),
    );
    assert.equal(tokens.status, 200, tokens.text);
    secrets.set('access token (OAuth)', tokens.json.access_token);
    const again = await postForm(
      `${p.url}/oauth/token`,
      { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token },
      basic(clientId, clientSecret),
    );
    assert.equal(again.status, 200, again.text);
    secrets.set('refresh token (OAuth, rotated)', tokens.json.refresh_token);
    secrets.set('refresh token (OAuth)', again.json.refresh_token);
    // An approved code that was never exchanged.
    const unused = await authorizeCode(p, cookie, clientId);
    secrets.set('authorization code (not exchanged)', unused.code);
    hashes.set('code hash', sha256(unused.code));

    secrets.set('subject token', p.subjectToken);
  });
  after(() => p.close());

  it('no table, column or row holds a plaintext secret; the hashes are there', async () => {
    const { tables, cells } = await everyCell(p.database);
    assert.ok(tables >= 10, `${tables} tables`);
    assert.ok(cells.length > 100, `${cells.length} cells read`);
    assert.ok(secrets.size >= 18, `${secrets.size} secrets`);
    for (const [what, secret] of secrets) {
      assert.ok(secret.length >= 20, `${what} is a real secret`);
      const found = cells.filter((c) => c.text.includes(secret)).map((c) => c.where);
      assert.deepEqual(found, [], `${what} is stored in plaintext`);
      // Nor a part of it long enough to matter (a JWT's signature, a code's secret half).
      const tail = secret.slice(-32);
      assert.deepEqual(
        cells.filter((c) => c.text.includes(tail)).map((c) => c.where),
        [],
        `${what} (its end)`,
      );
    }
    for (const [what, hash] of hashes) {
      assert.ok(
        cells.some((c) => c.text.includes(hash)),
        `${what} is stored`,
      );
    }
  });

  it('the raw bytes the rows are kept in hold none of them either (no freed page, no journal, no dead row)', async () => {
    // SQLite: the file, its WAL and shm. PostgreSQL: every page of the schema's tables, TOAST and
    // indexes, where an updated or deleted row stays until vacuumed.
    const kept = await rawBytes(p.database);
    assert.ok(kept.length >= 1);
    let bytes = 0;
    for (const { where, bytes: raw } of kept) {
      bytes += raw.length;
      for (const [what, secret] of secrets) assert.equal(raw.indexOf(secret), -1, `${what} in ${where}`);
    }
    assert.ok(bytes > 10_000, `${bytes} bytes searched`);
    // The search reads the rows: a hash the table holds is in the bytes too.
    assert.ok(
      kept.some(({ bytes: raw }) => raw.indexOf(hashes.get('session hash')!) >= 0),
      'the session hash is found',
    );
  });

  it('passwords are scrypt hashes with a salt of their own; the log never holds a secret', async () => {
    const a = await p.deps.store.getSubjectByUsername('secret-owner');
    const b = await p.deps.store.getSubjectByUsername('secret-newcomer');
    for (const s of [a, b])
      assert.match(s!.password_hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a!.password_hash.split('$')[4], b!.password_hash.split('$')[4], 'salts differ');
    assert.ok(await verifyPassword(secrets.get('password (account)')!, a!.password_hash));
    const log = logs.join('\n');
    for (const [what, secret] of secrets) assert.ok(!log.includes(secret), `${what} in the log`);
  });
});

describe('secrets are compared in constant time', () => {
  it('safeEqual and sameToken: timingSafeEqual on equal-length buffers, never a throw on a length mismatch', () => {
    const a = randomBytes(32).toString('base64url');
    assert.equal(safeEqual(a, a), true);
    assert.equal(safeEqual(a, `${a}x`), false);
    assert.equal(safeEqual(a, ''), false);
    assert.equal(safeEqual(`${a.slice(0, -1)}${a.endsWith('A') ? 'B' : 'A'}`, a), false);
    // sameToken hashes both sides first, so the lengths it compares are always 32 bytes.
    assert.equal(sameToken(a, a), true);
    assert.equal(sameToken('short', a), false);
    assert.equal(sameToken(undefined, a), false);
    assert.equal(sameToken(a, undefined), false);
    assert.equal(sameToken('', ''), false, 'an empty expected token never matches');
  });

  /** The named functions that compare a presented secret with a stored one, by file. */
  const COMPARERS: [string, string, RegExp][] = [
    ['src/auth/secrets.ts', 'safeEqual', /timingSafeEqual\(/],
    ['src/auth/passwords.ts', 'verifyPassword', /timingSafeEqual\(/],
    ['src/auth/pkce.ts', 'verifyS256', /safeEqual\(/],
    ['src/surfaces/shared/session.ts', 'sameToken', /timingSafeEqual\(/],
    ['src/operations/consent/tokens.ts', 'clientAuthenticated', /safeEqual\(sha256\(secret\)/],
    ['src/operations/consent/tokens.ts', 'exchangeGrantRequest', /safeEqual\(sha256\(input\.request_token\)/],
    ['src/operations/oauth/token.ts', 'exchangeCode', /safeEqual\(sha256\(code\)/],
    ['src/operations/oauth/token.ts', 'refreshTokens', /readPresented\(deps, input\.refresh_token\)/],
    [
      'src/operations/consent/refresh.ts',
      'readPresented',
      /getRefreshToken\(hash\)[\s\S]*chainMacValid\(chain\.seed, named\)/,
    ],
    ['src/auth/refresh-chain.ts', 'chainMacValid', /safeEqual\(/],
    [
      'src/operations/consent/refresh.ts',
      'rotateRefreshToken',
      /readPresented\(deps, input\.refresh_token\)/,
    ],
    ['src/operations/oauth/package-token.ts', 'exchangePackageCode', /safeEqual\(sha256\(code\)/],
    ['src/operations/oauth/clients.ts', 'secretMatches', /clientAuthenticated\(/],
    ['src/operations/accounts/subjects-and-sessions.ts', 'sessionFrom', /getSession\(sha256\(secret\)\)/],
    ['src/operations/accounts/subjects-and-sessions.ts', 'signIn', /verifyPassword\(/],
  ];

  /** The source of `function name(…) {…}` (to the closing brace at the start of a line). */
  function functionSource(file: string, name: string): string {
    const text = readFileSync(file, 'utf8');
    const start = text.search(new RegExp(`function ${name}\\b`));
    assert.ok(start >= 0, `${name} in ${file}`);
    const end = text.indexOf('\n}\n', start);
    return text.slice(start, end + 2);
  }

  it('static check: the comparers use timingSafeEqual (or a hash lookup), and no === touches a secret', () => {
    // A property named `code` (an error's code) is no secret: only the identifier `code` is.
    const SECRET =
      /secret|hash|csrf|password|verifier|request_token|refresh_token|(?<![.\w])code\b|challenge|expected|actual/i;
    // Comparing with a constant (a string literal, undefined, a length, a kind) compares no secret.
    const HARMLESS =
      /^(undefined|null|0|true|false|'[^']*'|"[^"]*")$|\.length$|\.(kind|status|client_id|grant_id|family_id)$/;
    for (const [file, name, uses] of COMPARERS) {
      const source = functionSource(file, name);
      assert.match(source, uses, `${name} compares through ${uses}`);
      for (const m of source.matchAll(/([\w.?[\]'"]+)\s*[!=]==?\s*([\w.?[\]'"]+)/g)) {
        const [, left, right] = m as unknown as [string, string, string];
        const secretSide = SECRET.test(left) || SECRET.test(right);
        const harmless = HARMLESS.test(left) || HARMLESS.test(right);
        assert.ok(!secretSide || harmless, `${file}#${name}: "${m[0]}" compares a secret with ===`);
      }
    }
  });
});

describe('guessing is rate limited (limit 5 per 60 s; sign-in 20 per 300 s)', () => {
  let p: TestProvider;
  const time = testClock();
  before(async () => {
    p = await startTestProvider({ rateLimit: 5, clock: time.clock, env: { PPX_ENABLE_SIGNUP: '1' } });
    assert.ok(
      (
        await createSubject(p.deps, {
          username: 'guess-target',
          password: 'the-real-password',
          subject_id: DEMO_SUBJECT,
        })
      ).ok,
    );
  });
  after(() => p.close());

  /** A sign-in attempt from a fresh form (a fresh pre-session cookie each time). */
  async function signInAttempt(username: string, password: string, headers: Record<string, string> = {}) {
    const form = await fetch(`${p.url}/signin`);
    return post(p, '/signin', {
      fields: [
        ['csrf', hiddenField(await form.text(), 'csrf')!],
        ['username', username],
        ['password', password],
      ],
      cookies: { ppx_csrf: cookieFrom(form, 'ppx_csrf')! },
      headers,
    });
  }

  function assert429(res: Response, what: string) {
    assert.equal(res.status, 429, what);
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry > 0, `${what}: Retry-After ${res.headers.get('retry-after')}`);
  }

  it('sign-in: 20 wrong passwords, then 429 with Retry-After; the right password is not even checked', async () => {
    time.toNextWindow(300_000);
    for (let i = 1; i <= 20; i++) {
      const r = await signInAttempt('guess-target', `guess-${i}`);
      assert.equal(r.status, 401, `attempt ${i}`);
    }
    const right = await signInAttempt('guess-target', 'the-real-password');
    assert429(right, 'the right password after the limit');
    assert.match(await right.text(), /Too many sign-in attempts/);
    assert.equal(cookieFrom(right, 'ppx_session'), undefined, 'no session');
  });

  it('sign-in: the limit holds for every spelling of the same caller (username, forwarding headers, sign-up)', async () => {
    // Still the same window as the test above: the budget is spent.
    const spellings: [string, () => Promise<Response>][] = [
      ['another username', () => signInAttempt('someone-else', 'x')],
      ['the username in capitals', () => signInAttempt('GUESS-TARGET', 'the-real-password')],
      [
        'X-Forwarded-For',
        () => signInAttempt('guess-target', 'the-real-password', { 'x-forwarded-for': '203.0.113.7' }),
      ],
      [
        'Forwarded',
        () => signInAttempt('guess-target', 'the-real-password', { forwarded: 'for=203.0.113.8' }),
      ],
      ['X-Real-IP', () => signInAttempt('guess-target', 'the-real-password', { 'x-real-ip': '203.0.113.9' })],
      [
        'sign-up instead',
        async () => {
          const form = await preSessionForm(p, '/signup');
          return post(p, '/signup', {
            fields: [
              ['csrf', form.token],
              ['username', 'guess-newcomer'],
              ['password', 'a-new-password'],
              ['password_again', 'a-new-password'],
            ],
            cookies: { ppx_csrf: form.cookie },
          });
        },
      ],
    ];
    for (const [what, attempt] of spellings) assert429(await attempt(), what);
    assert.equal(await p.deps.store.getSubjectByUsername('guess-newcomer'), undefined);
    time.toNextWindow(300_000);
    assert.equal((await signInAttempt('guess-target', 'the-real-password')).status, 303, 'the next window');
  });

  /** 5 guesses, then every further spelling is 429 with the PPX code and Retry-After. */
  async function assertGuessesLimited(
    what: string,
    guess: (i: number) => Promise<Response>,
    spellings: [string, () => Promise<Response>][],
  ) {
    time.toNextWindow(60_000);
    for (let i = 1; i <= 5; i++) {
      const r = await guess(i);
      assert.notEqual(r.status, 429, `${what}: guess ${i}`);
      assert.ok(r.status >= 400, `${what}: guess ${i} failed (${r.status})`);
    }
    for (const [spelled, attempt] of [
      ['the same again', () => guess(6)] as [string, () => Promise<Response>],
      ...spellings,
    ]) {
      const r = await attempt();
      assert429(r, `${what}, ${spelled}`);
      const body = (await r.json()) as { error: string };
      assert.equal(body.error, 'rate_limited', `${what}, ${spelled}`);
    }
  }

  const random = () => randomBytes(32).toString('base64url');
  const madeUpJwt = () =>
    `eyJhbGciOiJFZERTQSJ9.${randomBytes(24).toString('base64url')}.${randomBytes(64).toString('base64url')}`;
  const form = (path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(p.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params),
    });

  const json = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(p.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('/oauth/token: code, refresh token and client secret guesses share one budget per address', async () => {
    await assertGuessesLimited(
      '/oauth/token',
      (i) =>
        i % 2 === 0
          ? form('/oauth/token', {
              grant_type: 'authorization_code',
              client_id: 'fragrance-demo',
              code: `gr_x.${random()}`,
              code_verifier: random(),
            })
          : form('/oauth/token', {
              grant_type: 'refresh_token',
              client_id: 'fragrance-demo',
              refresh_token: random(),
            }),
      [
        [
          'a client secret guess (Basic)',
          () =>
            form(
              '/oauth/token',
              { grant_type: 'refresh_token', refresh_token: 'x' },
              basic('some-client', random()),
            ),
        ],
        [
          'another client_id',
          () =>
            form('/oauth/token', {
              grant_type: 'refresh_token',
              client_id: 'travel-demo',
              refresh_token: random(),
            }),
        ],
        [
          'JSON instead of a form',
          () => json('/oauth/token', { grant_type: 'refresh_token', client_id: 'x', refresh_token: 'y' }),
        ],
        [
          'X-Forwarded-For',
          () =>
            form(
              '/oauth/token',
              { grant_type: 'refresh_token', refresh_token: 'x' },
              { 'x-forwarded-for': '203.0.113.1' },
            ),
        ],
        [
          'a made-up bearer token',
          () =>
            form(
              '/oauth/token',
              { grant_type: 'refresh_token', refresh_token: 'x' },
              { authorization: `Bearer ${madeUpJwt()}` },
            ),
        ],
        [
          'the revocation endpoint',
          () => form('/oauth/revoke', { token: random(), client_id: 'fragrance-demo' }),
        ],
        [
          'introspection',
          () => form('/oauth/introspect', { token: random() }, basic('some-client', random())),
        ],
      ],
    );
  });

  it('/oauth/register: registrations count against the same budget', async () => {
    const registration = () =>
      fetch(`${p.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['https://x.example/cb'],
          client_name: 'flood',
          token_endpoint_auth_method: 'none',
        }),
      });
    time.toNextWindow(60_000);
    for (let i = 1; i <= 5; i++) assert.equal((await registration()).status, 201, `registration ${i}`);
    const r = await registration();
    assert429(r, 'the sixth registration');
    assert.equal(((await r.json()) as { error: string }).error, 'rate_limited');
  });

  it('/v1/consent/token and /v1/consent/refresh: request-token, refresh-token and secret guesses, one budget per address', async () => {
    const pending = await ask(p);
    await assertGuessesLimited(
      '/v1/consent/token',
      (i) =>
        i % 2 === 0
          ? json('/v1/consent/token', {
              grant_request_id: pending.id,
              request_token: random(),
              code_verifier: pending.verifier,
              client_id: 'fragrance-demo',
            })
          : json('/v1/consent/refresh', { client_id: 'fragrance-demo', refresh_token: random() }),
      [
        [
          'another client_id',
          () => json('/v1/consent/refresh', { client_id: 'travel-demo', refresh_token: random() }),
        ],
        [
          'X-Forwarded-For',
          () =>
            json(
              '/v1/consent/refresh',
              { client_id: 'x', refresh_token: random() },
              { 'x-forwarded-for': '203.0.113.2' },
            ),
        ],
        [
          'a made-up bearer token (the route takes none)',
          () =>
            json(
              '/v1/consent/token',
              {
                grant_request_id: pending.id,
                request_token: random(),
                code_verifier: pending.verifier,
                client_id: 'fragrance-demo',
              },
              { authorization: `Bearer ${madeUpJwt()}` },
            ),
        ],
        [
          'a made-up bearer token, refresh',
          () =>
            json(
              '/v1/consent/refresh',
              { client_id: 'fragrance-demo', refresh_token: random() },
              { authorization: `Bearer ${madeUpJwt()}` },
            ),
        ],
      ],
    );
    // The genuine exchange, once the window has passed, still works: guessing spent nothing.
    time.toNextWindow(60_000);
    const ok = await exchange(p, pending);
    assert.equal(ok.status, 400, 'not approved: the uniform invalid_grant');
    assert.equal(ok.json.error, 'invalid_grant');
  });
});

describe('a signed-in caller cannot grow the passkey challenges without bound', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider({ rateLimit: 5, env: { PPX_HOST: 'localhost' } });
    assert.ok(
      (
        await createSubject(p.deps, {
          username: 'ticket-grower',
          password: 'a-long-password-1',
          subject_id: DEMO_SUBJECT,
        })
      ).ok,
    );
  });
  after(() => p.close());

  it('every request that leaves a challenge counts against the sign-in limit: past it, 429', async () => {
    const me = await newSession(p, DEMO_SUBJECT);
    const ask = (route: string) =>
      post(p, route, {
        json: {},
        cookies: { ppx_session: me.session },
        headers: { 'x-csrf-token': me.csrf, origin: new URL(p.deps.provider.baseUrl).origin },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      statuses.push(
        (await ask('/app/api/confirm/options')).status,
        (await ask('/app/api/passkeys/options')).status,
      );
    }
    // 20 per 300 s (the sign-in limit at rateLimit 5): then refused, and nothing more is stored.
    assert.equal(statuses.filter((s) => s === 200).length, 20, statuses.join(' '));
    assert.deepEqual([...new Set(statuses.slice(20))], [429]);
  });
});
