import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../test/support/chromium.ts';
import { approve, statusOf } from '../../../test/support/consent-flow.ts';
import {
  consentInBrowser,
  publicClient,
  REDIRECT,
  signedInCookie,
} from '../../../test/support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../../test/support/provider.ts';
import { skipWhen } from '../../../test/support/skip.ts';

// The built library (dist/, `npm run build:client`) as an ES module in Chromium (issue 28: "Node
// 20+ and browsers"). A small origin serves the page and dist/, and in front of everything else
// stands the provider, whose base URL it is. The whole consent-v2 flow runs in a page, on the
// provider's origin and from another one: discover, a DPoP key made by WebCrypto, the request,
// waiting for the person over the back channel, the exchange, typed reads, revocation.
//
// From another origin the browser reads the provider's answers because its discovery documents,
// OAuth endpoints and HTTP API send CORS headers (`*`, never with credentials:
// src/surfaces/shared/cors.ts), so an OAuth public client works there too. What a cookie
// authenticates stays unreadable from that origin, credentials or not (docs/client-library.md).

const DIST = join(import.meta.dirname, '..', 'dist');

/** What the page imports from dist/: the API of src/ (the root tsconfig has no DOM types, hence globals by hand). */
type Library = typeof import('../src/index.ts');
interface PageGlobals {
  readonly location: { readonly origin: string };
  client?: InstanceType<Library['PpxClient']>;
  personApproves(id: string): Promise<number>;
}

interface Origin {
  readonly server: Server;
  /** http://127.0.0.1:<port>: the provider's base URL and the app's origin. */
  readonly url: string;
  /** The same server as http://localhost:<port>: another origin. */
  readonly other: string;
}

/** Serves /app/ (a blank page) and /app/dist/…, and passes every other request to the provider. */
async function appOrigin(provider: () => string): Promise<Origin> {
  const server = createServer((req, res) => {
    void serve(req, res, provider()).catch((e: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `http://127.0.0.1:${port}`, other: `http://localhost:${port}` };
}

async function serve(req: IncomingMessage, res: ServerResponse, upstream: string): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path === '/app/') {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>app</title><main>app</main>');
    return;
  }
  if (path.startsWith('/app/dist/')) {
    const file = normalize(join(DIST, path.slice('/app/dist/'.length)));
    if (!file.startsWith(DIST) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
    return;
  }
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers.set(k, v);
  }
  const answer = await fetch(`${upstream}${req.url}`, {
    method: req.method ?? 'GET',
    headers,
    redirect: 'manual',
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
  const out: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
  });
  res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
}

describe('@ppx-provider/client in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
  let origin: Origin;
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };

  before(async () => {
    assert.ok(existsSync(join(DIST, 'index.js')), 'packages/client/dist is missing: npm run build:client');
    origin = await appOrigin(() => p.url);
    p = await startTestProvider({ env: { PPX_BASE_URL: origin.url } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await p?.close();
    origin?.server.closeAllConnections();
    await new Promise((r) => origin?.server.close(r));
  });

  async function pageAt(base: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(`${base}/app/`);
    return page;
  }

  for (const where of ['on the provider’s origin', 'from another origin'] as const) {
    it(`${where}: discover, DPoP, request, wait for the person, exchange, read, revoke`, async () => {
      const page = await pageAt(where === 'on the provider’s origin' ? origin.url : origin.other);
      // The person, elsewhere: approves over the subject's HTTP API when the page has asked.
      await page.exposeFunction('personApproves', async (id: string) => (await approve(p, id)).status);
      const seen = await page.evaluate(
        async ({ subject, base }) => {
          const g = globalThis as unknown as PageGlobals;
          const ppx: Library = await import(`${g.location.origin}/app/dist/index.js`);
          const provider = await ppx.discover(base);
          if (!provider.ok) return { failed: provider.error };
          const dpop = await ppx.DpopKey.generate();
          const client = new ppx.PpxClient(provider.value, { clientId: 'fragrance-demo', dpop });
          const pending = await client.requestGrant({
            subject_id: subject,
            purposes: ['recommendation'],
            allowed_domains: ['fragrance'],
            allowed_namespaces: ['core', 'fragrance'],
            allowed_operations: ['read', 'query'],
          });
          if (!pending.ok) return { failed: pending.error };
          const waiting = ppx.waitForDecision(client, pending.value, { intervalMs: 50 });
          const approved = await g.personApproves(pending.value.grantRequestId);
          const tokens = await waiting;
          if (!tokens.ok) return { failed: tokens.error, approved };
          const grant = new ppx.Grant(client, tokens.value.grantId);
          const effective = await grant.effective({ occasion: 'office' });
          const query = await grant.query({ requested_namespaces: ['fragrance'] });
          const summary = await grant.summary();
          const refreshed = await client.refresh(grant.grantId);
          const revoked = await client.revoke(grant.grantId);
          const afterwards = await grant.summary();
          return {
            dpop: provider.value.dpop,
            approved,
            grantId: tokens.value.grantId,
            tokenType: tokens.value.tokenType,
            effective: effective.ok
              ? effective.value.claims.map(
                  (c: { namespace: string; key: string }) => `${c.namespace}.${c.key}`,
                )
              : effective.error,
            lookup: effective.ok ? ppx.lookup(effective.value, 'travel.seat_preference').state : undefined,
            query: query.ok ? query.value.claims.length : query.error,
            summary: summary.ok,
            rotated: refreshed.ok && refreshed.value.refreshToken !== tokens.value.refreshToken,
            revoked: revoked.ok,
            afterwards: afterwards.ok ? 'read' : afterwards.error.code,
          };
        },
        { subject: p.subjectId, base: origin.url },
      );
      assert.ok(!('failed' in seen), JSON.stringify(seen));
      assert.equal(seen.dpop, true);
      assert.equal(seen.approved, 200);
      assert.equal(seen.tokenType, 'DPoP', 'bound to the key WebCrypto made in the page');
      assert.ok(Array.isArray(seen.effective) && seen.effective.length > 0, JSON.stringify(seen.effective));
      assert.ok(
        (seen.effective as string[]).every((k) => k.startsWith('core.') || k.startsWith('fragrance.')),
        JSON.stringify(seen.effective),
      );
      assert.equal(seen.lookup, 'not_granted');
      assert.ok(typeof seen.query === 'number' && seen.query > 0, JSON.stringify(seen.query));
      assert.equal(seen.summary, true);
      assert.equal(seen.rotated, true);
      assert.equal(seen.revoked, true);
      assert.equal(seen.afterwards, 'not_found', 'the tokens are gone from the store');
      assert.equal(await statusOf(p, seen.grantId as string), 'revoked');
      await page.close();
    });
  }

  it('from another origin: an OAuth public client discovers, exchanges its code, reads, refreshes and revokes', async () => {
    const cookie = await signedInCookie(p);
    const clientId = await publicClient(p);
    const page = await pageAt(origin.other);
    const asked = await page.evaluate(
      async ({ base, clientId, redirect }) => {
        const g = globalThis as unknown as PageGlobals;
        const ppx: Library = await import(`${g.location.origin}/app/dist/index.js`);
        const discovered = await ppx.discover(base);
        if (!discovered.ok) return { discovered: discovered.error };
        const client = new ppx.PpxClient(discovered.value, { clientId, dpop: await ppx.DpopKey.generate() });
        g.client = client;
        const pending = await ppx.authorizationUrl(client, { redirectUri: redirect, scope: 'ppx:read' });
        return { discovered: 'ok', pending: pending.ok ? pending.value : undefined };
      },
      { base: origin.url, clientId, redirect: REDIRECT },
    );
    assert.equal(asked.discovered, 'ok', JSON.stringify(asked));
    assert.ok(asked.pending);

    const back = await consentInBrowser(asked.pending.url, cookie);
    const seen = await page.evaluate(
      async ({ back, pending }) => {
        const g = globalThis as unknown as PageGlobals;
        const ppx: Library = await import(`${g.location.origin}/app/dist/index.js`);
        const client = g.client;
        if (client === undefined) return { exchanged: 'no client' };
        const tokens = await ppx.exchangeCode(client, back, pending);
        if (!tokens.ok) return { exchanged: tokens.error };
        const read = await new ppx.Grant(client, tokens.value.grantId).summary();
        const refreshed = await client.refresh(tokens.value.grantId);
        const revoked = await client.revoke(tokens.value.grantId);
        return {
          exchanged: 'ok',
          tokenType: tokens.value.tokenType,
          grantId: tokens.value.grantId,
          read: read.ok ? 'read' : read.error,
          refreshed: refreshed.ok ? 'ok' : refreshed.error,
          revoked: revoked.ok ? 'ok' : revoked.error,
        };
      },
      { back: back.href, pending: asked.pending },
    );
    assert.equal(seen.exchanged, 'ok', JSON.stringify(seen));
    assert.equal(seen.tokenType, 'DPoP');
    assert.equal(seen.read, 'read', JSON.stringify(seen));
    assert.equal(seen.refreshed, 'ok', JSON.stringify(seen));
    assert.equal(seen.revoked, 'ok', JSON.stringify(seen));
    assert.equal(await statusOf(p, seen.grantId as string), 'revoked');
    await page.close();
  });

  it('from another origin, what the person’s session cookie authenticates stays unreadable', async () => {
    // The person is signed in at the provider in this browser, with the cookie the sign-in sets.
    const session = (await signedInCookie(p)).slice('ppx_session='.length);
    await browser.context.addCookies([
      { name: 'ppx_session', value: session, url: origin.url, httpOnly: true, sameSite: 'Lax' },
    ]);
    const probe = async (page: Page, at: string) =>
      page.evaluate(async (base) => {
        /** A read's status, or `blocked` when the browser refuses the script the answer. */
        const read = (path: string, init: RequestInit) =>
          fetch(`${base}${path}`, init).then(
            (r) => r.status,
            () => 'blocked' as const,
          );
        const review = {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            threadId: 't',
            runId: 'r',
            messages: [],
            forwardedProps: { follow: false },
          }),
        };
        return {
          receipts: await read('/app/receipts.json', { credentials: 'include' }),
          receiptsNoCredentials: await read('/app/receipts.json', {}),
          apiWithCredentials: await read('/v1/profile/summary', { credentials: 'include' }),
          reviewWithCredentials: await read('/v1/agui/review', { ...review, credentials: 'include' }),
          card: await read('/.well-known/ppx-card.json', {}),
        };
      }, at);
    const home = await pageAt(origin.url);
    const own = await probe(home, origin.url);
    await home.close();
    assert.equal(own.receipts, 200, 'on its own origin the session reads the person’s receipts');
    const page = await pageAt(origin.other);
    const other = await probe(page, origin.url);
    await page.close();
    assert.deepEqual(other, {
      // No CORS on the session's routes: not with the cookie, not without.
      receipts: 'blocked',
      receiptsNoCredentials: 'blocked',
      // `*` without credentials: a credentialed request under the open policy is refused.
      apiWithCredentials: 'blocked',
      reviewWithCredentials: 'blocked',
      card: 200,
    });
  });
});
