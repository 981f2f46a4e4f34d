import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer, type Socket } from 'node:net';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isPrivate } from '../../../src/operations/oauth/client-document.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import {
  codeRequest,
  get,
  pkce,
  postForm,
  REDIRECT,
  signedInCookie,
  startDevProvider,
} from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { decisionFields, newSession, post } from './helpers.ts';

// Server-side request forgery through what a client names. The only URL this provider ever
// fetches is a client ID metadata document (src/operations/oauth/client-document.ts); the other
// URLs a client gives (logo_uri, client_uri, jwks_uri, …) are kept as text and never fetched.
// Each attack below points the provider at a real listener on loopback that counts the
// connections it receives: a refusal is shown as a page with its reason AND as no connection.
// Private ranges off this machine (10/8, 169.254/16, …) are never targets here, not even by
// mistake: their refusal is shown by the address check itself (it runs before any connection).

/** A TCP listener that counts connections (and holds them open until closed). */
interface Listener {
  readonly port: number;
  readonly connections: () => number;
  close(): Promise<void>;
}

async function listen(host = '127.0.0.1'): Promise<Listener> {
  const sockets: Socket[] = [];
  let count = 0;
  const server: NetServer = createServer((socket) => {
    count += 1;
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server for the development-flag cases: `handler` answers each path. */
async function httpSite(
  handler: Parameters<typeof createHttpServer>[1],
): Promise<{ url: string; server: Server }> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function closeSite(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** GET /oauth/authorize for a client_id URL: the page's status and its words. */
async function authorizeWith(p: TestProvider, clientId: string, cookie?: string) {
  const r = await get(codeRequest(p, clientId, pkce().challenge), cookie);
  return { status: r.status, location: r.headers.get('location'), text: await r.text() };
}

describe('SSRF: client ID metadata document URLs (production settings)', () => {
  let p: TestProvider;
  let target: Listener;
  let target6: Listener | undefined;
  before(async () => {
    p = await startTestProvider();
    target = await listen('127.0.0.1');
    target6 = await listen('::1').catch(() => undefined);
  });
  after(async () => {
    await target.close();
    await target6?.close();
    await p.close();
  });

  const cases = (port: number): [string, string, RegExp][] => [
    ['loopback', `https://127.0.0.1:${port}/client.json`, /private, loopback or link-local/],
    ['another loopback address', `https://127.1.2.3:${port}/client.json`, /private, loopback or link-local/],
    [
      'localhost (a name resolving to loopback)',
      `https://localhost:${port}/client.json`,
      /private, loopback/,
    ],
    ['0.0.0.0 (reaches this machine)', `https://0.0.0.0:${port}/client.json`, /private, loopback/],
    ['::1', `https://[::1]:${port}/client.json`, /private, loopback/],
    ['IPv4-mapped IPv6 (normalized)', `https://[::ffff:7f00:1]:${port}/client.json`, /private, loopback/],
    ['IPv4-mapped IPv6 (dotted)', `https://[::ffff:127.0.0.1]:${port}/client.json`, /normalized URL/],
    ['decimal IPv4', `https://2130706433:${port}/client.json`, /normalized URL/],
    ['octal IPv4', `https://0177.0.0.1:${port}/client.json`, /normalized URL/],
    ['hex IPv4', `https://0x7f.0.0.1:${port}/client.json`, /normalized URL/],
    ['short IPv4', `https://127.1:${port}/client.json`, /normalized URL/],
    ['upper-case host', `https://LOCALHOST:${port}/client.json`, /normalized URL/],
    ['plain http', `http://127.0.0.1:${port}/client.json`, /must use https/],
    ['credentials in the URL', `https://user:pw@127.0.0.1:${port}/client.json`, /no credentials/],
    ['a fragment', `https://127.0.0.1:${port}/client.json#x`, /no credentials or fragment/],
    ['no path', `https://127.0.0.1:${port}/`, /must have a path/],
  ];

  it('every spelling of this machine is refused with its reason, and no connection arrives', async () => {
    const cookie = await signedInCookie(p);
    for (const [what, url, reason] of cases(target.port)) {
      for (const session of [cookie, undefined]) {
        const r = await authorizeWith(p, url, session);
        assert.equal(r.status, 400, `${what}: ${r.status}`);
        assert.equal(r.location, null, what);
        assert.match(r.text, /This sign-in link is not valid/, what);
        assert.match(r.text, reason, `${what}: ${r.text.match(/<p>[^<]*<\/p>/)?.[0]}`);
      }
    }
    assert.equal(target.connections(), 0, 'no connection reached the IPv4 listener');
    assert.equal(target6?.connections() ?? 0, 0, 'no connection reached the IPv6 listener');
  });

  it('the address check refuses every special-purpose range before connecting (no traffic is sent there)', () => {
    for (const a of [
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '127.0.0.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::7f00:1',
      '::a00:1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '64:ff9b::a00:1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '::ffff:127.0.0.1',
    ]) {
      assert.equal(isPrivate(a), true, a);
    }
    for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700::1111', '2a00:1450::1'])
      assert.equal(isPrivate(a), false, a);
    // The spellings a URL parser turns into these addresses are never fetched as written: the
    // client_id must be its own normalized URL (above), whose host is then the dotted form.
    const spellings: [string, string][] = [
      ['https://2852039166/x', '169.254.169.254'],
      ['https://0xa9.0xfe.0xa9.0xfe/x', '169.254.169.254'],
      ['https://012.0.0.1/x', '10.0.0.1'],
      ['https://[::ffff:169.254.169.254]/x', '[::ffff:a9fe:a9fe]'],
    ];
    for (const [spelled, host] of spellings) {
      assert.equal(new URL(spelled).host, host, spelled);
      assert.equal(isPrivate(host.replace(/^\[|\]$/g, '')), true, host);
    }
  });

  it('a client_id that is not an http(s) URL is an unknown client, never fetched', async () => {
    for (const id of [
      `ftp://127.0.0.1:${target.port}/c`,
      `file:///etc/passwd`,
      `gopher://127.0.0.1:${target.port}/`,
    ]) {
      const r = await authorizeWith(p, id);
      assert.equal(r.status, 400, id);
      assert.match(r.text, /is not registered with this provider/, id);
    }
    assert.equal(target.connections(), 0);
  });
});

describe('SSRF: what a fetched document may do (development flag: http and loopback allowed)', () => {
  let dev: TestProvider;
  let inner: Listener;
  let site: { url: string; server: Server };
  let cookie: string;
  const served: string[] = [];
  before(async () => {
    dev = await startDevProvider();
    cookie = await signedInCookie(dev);
    inner = await listen();
    site = await httpSite((req, res) => {
      served.push(req.url ?? '');
      const self = `${site.url}${req.url}`;
      if (req.url === '/redirect.json') {
        res.writeHead(302, { location: `http://127.0.0.1:${inner.port}/client.json` }).end();
      } else if (req.url === '/endless.json') {
        // No Content-Length: bytes until the reader gives up.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        const pump = () => {
          while (!res.writableEnded && res.write(chunk));
          if (!res.writableEnded) res.once('drain', pump);
        };
        res.on('close', () => res.end());
        pump();
      } else if (req.url === '/declared-huge.json') {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(10 * 1024 * 1024),
        });
        res.write('{');
      } else if (req.url === '/slow.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"client_id":'); // and nothing more, ever
      } else if (req.url === '/with-urls.json') {
        const elsewhere = `http://127.0.0.1:${inner.port}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            client_id: self,
            client_name: 'Doc with URLs',
            redirect_uris: [REDIRECT],
            logo_uri: `${elsewhere}/logo.png`,
            client_uri: `${elsewhere}/`,
            jwks_uri: `${elsewhere}/jwks.json`,
            tos_uri: `${elsewhere}/tos`,
            policy_uri: `${elsewhere}/policy`,
            sector_identifier_uri: `${elsewhere}/sector.json`,
            request_uris: [`${elsewhere}/request`],
          }),
        );
      } else {
        res.writeHead(404).end();
      }
    });
  });
  after(async () => {
    await closeSite(site.server);
    await inner.close();
    await dev.close();
  });

  it('a redirect to another (private) address is not followed', async () => {
    const r = await authorizeWith(dev, `${site.url}/redirect.json`, cookie);
    assert.equal(r.status, 400);
    assert.match(r.text, /status 302; redirects are not followed/);
    assert.equal(inner.connections(), 0, 'the redirect target was never contacted');
  });

  it('an endless document is cut at 64 KiB, and one declaring more is not read', async () => {
    for (const path of ['/endless.json', '/declared-huge.json']) {
      const r = await authorizeWith(dev, `${site.url}${path}`, cookie);
      assert.equal(r.status, 400, path);
      assert.match(r.text, /larger than 64 KiB/, path);
    }
  });

  it('a document that never finishes is given up (5 s deadline), with a clear error', async () => {
    const r = await authorizeWith(dev, `${site.url}/slow.json`, cookie);
    assert.equal(r.status, 400);
    assert.match(r.text, /could not be fetched/);
  });

  it('the URLs inside a document (logo, jwks, tos, …) are never fetched, through the whole flow', async () => {
    const id = `${site.url}/with-urls.json`;
    const { verifier, challenge } = pkce();
    const a = await get(codeRequest(dev, id, challenge), cookie);
    assert.equal(a.status, 302, await a.text());
    const consent = a.headers.get('location')!;
    const session = await newSession(dev, DEMO_SUBJECT);
    const page = await (await get(dev.url + consent, `ppx_session=${session.session}`)).text();
    assert.ok(!page.includes(`127.0.0.1:${inner.port}`), 'the consent page names none of them');
    const decided = await post(dev, `${consent}/decision`, {
      fields: await decisionFields(dev, consent, session.session, 'approve'),
      cookies: { ppx_session: session.session },
    });
    assert.equal(decided.status, 303);
    const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
    const tokens = await postForm(`${dev.url}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: id,
    });
    assert.equal(tokens.status, 200, tokens.text);
    assert.deepEqual(
      served.filter((u) => u === '/with-urls.json').length,
      1,
      'the document itself, once (cached)',
    );
    assert.equal(inner.connections(), 0, 'nothing else was fetched');
  });
});

describe('SSRF: registration URLs are kept as text, never fetched', () => {
  let p: TestProvider;
  let target: Listener;
  before(async () => {
    p = await startTestProvider();
    target = await listen();
  });
  after(async () => {
    await target.close();
    await p.close();
  });

  it('a registered client with every URL field pointing here: registration, consent and tokens connect nowhere', async () => {
    const here = `http://127.0.0.1:${target.port}`;
    const reg = await api(p.url, '/oauth/register', {
      body: {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        client_name: 'URL-laden app',
        logo_uri: `${here}/logo.png`,
        client_uri: `${here}/`,
        tos_uri: `${here}/tos`,
        policy_uri: `${here}/policy`,
        jwks_uri: `${here}/jwks.json`,
        sector_identifier_uri: `${here}/sector.json`,
        request_uris: [`${here}/request`],
        software_statement: 'x.y.z',
      },
    });
    assert.equal(reg.status, 201, reg.text);
    const clientId = reg.json.client_id as string;
    const { verifier, challenge } = pkce();
    const cookie = await signedInCookie(p);
    const a = await get(codeRequest(p, clientId, challenge, { request_uri: `${here}/request` }), cookie);
    // request_uri is refused back to the client (never fetched).
    assert.equal(a.status, 302);
    assert.equal(new URL(a.headers.get('location')!).searchParams.get('error'), 'request_uri_not_supported');
    const b = await get(codeRequest(p, clientId, challenge), cookie);
    const consent = b.headers.get('location')!;
    const session = await newSession(p, DEMO_SUBJECT);
    const page = await (await get(p.url + consent, `ppx_session=${session.session}`)).text();
    assert.doesNotMatch(page, /<img\b/, 'no logo is shown');
    const decided = await post(p, `${consent}/decision`, {
      fields: await decisionFields(p, consent, session.session, 'approve'),
      cookies: { ppx_session: session.session },
    });
    const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
    const tokens = await postForm(`${p.url}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    assert.equal(tokens.status, 200, tokens.text);
    assert.equal(target.connections(), 0);
  });

  it('static check: the document fetch is the only outgoing request of the server in src/', () => {
    // A global `fetch(` (not a method named fetch: the MCP SDK handler's `handler.fetch(request)`
    // serves a request, it sends none).
    const outgoing =
      /(?<![.\w])fetch\(|\b(https?\.(get|request)|net\.connect|createConnection|tls\.connect|dns\.lookup|lookup)\(/;
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && outgoing.test(readFileSync(path, 'utf8')))
          found.push(relative(process.cwd(), path));
      }
    };
    walk(join(process.cwd(), 'src'));
    assert.deepEqual(found.sort(), [
      // `ppx receipt verify FILE --jwks URL` (or without --jwks, the issuer's JWKS): the command
      // line of the person checking a receipt, on their machine, never the server.
      'src/cli/receipt.ts',
      'src/operations/oauth/client-document.ts',
    ]);
  });
});
