import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createGrant } from '../../../src/operations/grants/consent-grants.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { issueGrantToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { DEFAULT_APP_DIR } from '../../../src/surfaces/web/app-bundle.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../support/chromium.ts';
import { requestBody } from '../../support/consent-flow.ts';
import { codeRequest, get, pkce, REDIRECT, register } from '../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';
import { skipWhen } from '../../support/skip.ts';
import { PERSON } from '../../support/web-app.ts';
import { proposed } from '../../support/writeback.ts';
import { accountSignedIn, newSession } from './helpers.ts';

// HTML injection through everything a client or a grantee can put in front of the person: the
// client's name, the areas and keys it asks for, the values, notes, origins and explanations of
// the claims it proposes. Each payload breaks out of an element, an attribute, a URL or a
// template literal if it is not escaped; each would set window.__pwned if it ran. The consent page
// is checked as HTML (escaped, no new element) and in Chromium; the web app (A2UI components drawn
// by its own renderer) in Chromium on every view: no injected element, no inline handler, no
// javascript: link, the flag never set, and the payload shown as text. CSP headers on every page.

const PAYLOADS = [
  '<script>window.__pwned=1</script>',
  '"><img src=x onerror="window.__pwned=1">',
  "'><svg onload=window.__pwned=1>",
  'javascript:window.__pwned=1',
  // A template-literal breaker: inert unless some code builds a template from it.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the payload is this very text
  '${window.__pwned=1}`;window.__pwned=1;`',
  '</title></textarea></style><script>window.__pwned=1</script>',
  '" autofocus onfocus="window.__pwned=1" x="',
  '<a href="javascript:window.__pwned=1">click</a>',
  '{{constructor.constructor("window.__pwned=1")()}}',
];
/** A payload a page may show (as text) but must never parse: it opens a tag. */
const TAG = /<(script|img|svg|a|iframe|object|embed|style)\b/i;
/** The elements the server-rendered pages are made of (layout.ts and the page templates). */
const OWN_TAGS = new Set(
  'html head meta title link body header span main div strong a form input button section h1 h2 h3 p fieldset legend ul li label select option table thead tbody tr th td'.split(
    ' ',
  ),
);
const APP_VIEWS = ['/app', '/app/access', '/app/history', '/app/activity', '/app/data'];

/** Runs in the page: what an injection would leave behind. */
function injected(): {
  pwned: boolean;
  scripts: string[];
  handlers: string[];
  jsLinks: number;
  images: string[];
} {
  type El = {
    tagName: string;
    attributes: Iterable<{ name: string }>;
    outerHTML: string;
    getAttribute(n: string): string | null;
  };
  const doc = (
    globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El> & Iterable<El> } }
  ).document;
  const all = [...doc.querySelectorAll('*')];
  return {
    pwned: (globalThis as { __pwned?: unknown }).__pwned !== undefined,
    scripts: [...doc.querySelectorAll('script')].map((s) => s.getAttribute('src') ?? 'inline'),
    handlers: all.flatMap((e) =>
      [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${e.tagName} ${a.name}`),
    ),
    jsLinks: doc.querySelectorAll(
      'a[href^="javascript:" i], [src^="javascript:" i], [action^="javascript:" i]',
    ).length,
    images: [...doc.querySelectorAll('img, svg image, object, embed, iframe')].map((e) =>
      e.outerHTML.slice(0, 80),
    ),
  };
}

function assertClean(state: ReturnType<typeof injected>, where: string, bundleScripts: number) {
  assert.equal(state.pwned, false, `${where}: a payload ran`);
  assert.deepEqual(state.handlers, [], `${where}: inline handlers`);
  assert.equal(state.jsLinks, 0, `${where}: javascript: URLs`);
  assert.deepEqual(state.images, [], `${where}: injected media`);
  assert.equal(state.scripts.length, bundleScripts, `${where}: scripts ${state.scripts.join(', ')}`);
  assert.ok(!state.scripts.includes('inline'), `${where}: an inline script`);
}

describe('HTML injection', () => {
  let p: TestProvider;
  let cookie: string;
  let evilClient: string;
  before(async () => {
    p = await startTestProvider();
    await accountSignedIn(p, PERSON.username, DEMO_SUBJECT).catch(() => undefined);
    cookie = `ppx_session=${(await newSession(p, DEMO_SUBJECT)).session}`;
    const reg = await register(p, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      client_name: PAYLOADS.slice(0, 3).join(' '),
    });
    assert.equal(reg.status, 201);
    evilClient = reg.json.client_id;
  });
  after(() => p.close());

  /** The authorization details of a request asking for injected areas (and, if asked, keys). */
  function injectedDetail(withKeys = false) {
    return {
      type: 'ppx_grant',
      purposes: ['recommendation'],
      allowed_domains: ['fragrance', ...PAYLOADS],
      allowed_namespaces: ['fragrance'],
      allowed_claim_keys: [
        'fragrance.family_preference',
        ...(withKeys ? PAYLOADS.map((x) => `fragrance.${x}`) : []),
      ],
      allowed_operations: ['read'],
    };
  }

  /** A pending OAuth request of the injected client asking for injected areas. */
  async function injectedRequest(): Promise<string> {
    const detail = injectedDetail();
    const a = await get(
      codeRequest(p, evilClient, pkce().challenge, {
        authorization_details: JSON.stringify([detail]),
        state: PAYLOADS[1],
        scope: undefined,
      }),
      cookie,
    );
    assert.equal(a.status, 302, await a.text());
    return a.headers.get('location')!;
  }

  /** The subject's profile gets claims carrying every payload, proposed by a grantee and pending. */
  async function injectedProposals(): Promise<void> {
    const granted = await createGrant(
      p.deps,
      {
        subject_id: DEMO_SUBJECT,
        client_id: evilClient,
        purposes: ['recommendation'],
        allowed_domains: ['fragrance'],
        allowed_namespaces: ['fragrance'],
        allowed_operations: ['read', 'query', 'propose_update'],
        writeback_policy: 'review_required',
        expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      },
      'operator',
    );
    assert.ok(granted.ok);
    const token = (await issueGrantToken(p.deps, granted.value)).access_token;
    const text = PAYLOADS.join(' ');
    const claims = [
      proposed(
        'fragrance',
        'family_preference',
        Object.fromEntries(PAYLOADS.map((x, i) => [x, 0.9 - i / 20])),
        {
          explanation: { summary: text, detail: text },
        },
      ),
      proposed('fragrance', 'note_aversions', [...PAYLOADS, 'oud'], {
        source: { kind: 'observed', origin: text },
      }),
      proposed(
        'fragrance',
        'occasion_bias',
        { [PAYLOADS[0]!]: 0.7, [PAYLOADS[1]!]: 0.6 },
        { explanation: { summary: text } },
      ),
    ];
    const r = await api(p.url, '/v1/profile/propose-updates', { token, body: { claims } });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.proposals.length, 3, 'three proposals wait for the person');
    // A read under the grant: the activity and access views name the client.
    const read = await api(p.url, '/v1/profile/effective', { token, body: {} });
    assert.equal(read.status, 200, read.text);
  }

  it('keys carrying markup are refused before any page shows them: back to the client, encoded', async () => {
    // Areas are free-form, but a key must be one a vocabulary registers (model/extensions).
    const a = await get(
      codeRequest(p, evilClient, pkce().challenge, {
        authorization_details: JSON.stringify([injectedDetail(true)]),
        scope: undefined,
      }),
      cookie,
    );
    assert.equal(a.status, 302, await a.text());
    const location = new URL(a.headers.get('location')!);
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get('error'), 'invalid_authorization_details');
    assert.match(location.searchParams.get('error_description')!, /no namespace registers the keys/);
  });

  it('the consent page escapes the client name and areas; nothing becomes markup', async () => {
    const path = await injectedRequest();
    const res = await get(p.url + path, cookie);
    assert.equal(res.status, 200);
    const html = await res.text();
    const escaped = (s: string) =>
      s
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');
    assert.ok(html.includes(escaped('<script>window.__pwned=1</script>')), 'the name is shown, escaped');
    for (const x of PAYLOADS) {
      assert.ok(!html.includes(x) || !TAG.test(x), `raw payload in the page: ${x}`);
    }
    // Every tag in the page is one the page's own templates write, with no handler, no script URL.
    for (const [tag, name, attrs] of html.matchAll(/<([a-z][\w-]*)\b([^>]*)>/gi)) {
      assert.ok(OWN_TAGS.has(name!.toLowerCase()), `an element the page never writes: ${tag}`);
      // The attribute names, with every (quoted, escaped) value emptied; then the URLs.
      const names = attrs!.replace(/"[^"]*"/g, '""');
      assert.doesNotMatch(names, /\son\w+\s*=|\sautofocus\b|\ssrc=|\sstyle=/i, tag);
      for (const [, url] of attrs!.matchAll(/\s(?:href|action)="([^"]*)"/g))
        assert.doesNotMatch(url!, /^\s*javascript:/i, tag);
    }
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline|unsafe-eval/);
  });

  it('purposes, operations and scopes are a closed vocabulary: an injected one is refused, never shown', async () => {
    const r = await api(p.url, '/v1/consent/request', {
      body: requestBody(p, pkce().challenge, { purposes: [PAYLOADS[0]] }),
    });
    assert.equal(r.status, 400);
    const ops = await api(p.url, '/v1/consent/request', {
      body: requestBody(p, pkce().challenge, { allowed_operations: [PAYLOADS[1]] }),
    });
    assert.equal(ops.status, 400);
    const scope = await get(codeRequest(p, evilClient, pkce().challenge, { scope: PAYLOADS[0] }), cookie);
    assert.equal(scope.status, 302);
    assert.equal(new URL(scope.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
    const detail = await get(
      codeRequest(p, evilClient, pkce().challenge, {
        authorization_details: JSON.stringify([{ type: 'ppx_grant', detail_id: PAYLOADS[1] }]),
        scope: undefined,
      }),
      cookie,
    );
    assert.equal(
      new URL(detail.headers.get('location')!).searchParams.get('error'),
      'invalid_authorization_details',
    );
  });

  it('every page and the web app carry a Content-Security-Policy that allows no inline script', async () => {
    const pages = [
      '/signin',
      '/app',
      '/app/access',
      '/consent/gr_none',
      '/app/nowhere',
      '/signin?return_to=%3Cscript%3E',
    ];
    for (const path of pages) {
      const r = await get(p.url + path, cookie);
      const csp = r.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.match(csp, /base-uri 'none'/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|data:[^;]*script/, path);
      const script = /script-src ([^;]*)/.exec(csp)?.[1];
      assert.ok(script === undefined || script.trim() === "'self'", `${path}: script-src ${script}`);
    }
  });

  describe('in Chromium', skipWhen(SKIP_NO_CHROMIUM), () => {
    let browser: { context: BrowserContext; close(): Promise<void> };
    before(async () => {
      browser = await launchChromium();
    });
    after(() => browser?.close());

    async function signedInPage(): Promise<Page> {
      const session = await newSession(p, DEMO_SUBJECT);
      await browser.context.clearCookies();
      await browser.context.addCookies([{ name: 'ppx_session', value: session.session, url: p.url }]);
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      return page;
    }

    it('the consent page: the payloads are text, nothing ran', async () => {
      const path = await injectedRequest();
      const page = await signedInPage();
      try {
        await page.goto(p.url + path);
        await page.waitForSelector('h1');
        assertClean(await page.evaluate(injected), 'consent page', 0);
        // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
        const heading = await page.innerText('h1');
        assert.ok(heading.includes('<script>window.__pwned=1</script>'), 'shown as text');
      } finally {
        await page.close();
      }
    });

    it('the web app, every view: no injected element, no handler, the flag never set, the payload shown as text', {
      skip: existsSync(new URL('.vite/manifest.json', DEFAULT_APP_DIR))
        ? false
        : 'run npm run build:app first',
    }, async () => {
      await injectedRequest();
      await injectedProposals();
      const page = await signedInPage();
      try {
        const shownAnywhere = new Set<string>();
        for (const view of APP_VIEWS) {
          await page.goto(p.url + view);
          await page.waitForSelector('#connection.live');
          // The views draw from the stream and from the audit log: wait until nothing says loading
          // (and, on the overview, until the proposals are drawn).
          if (view === '/app')
            await page.locator('#suggestions [data-surface^="ppx-suggestions-"]').first().waitFor();
          await page.waitForFunction(() => {
            const doc = (
              globalThis as unknown as {
                document: { querySelector(s: string): { textContent: string | null } | null };
              }
            ).document;
            const main = doc.querySelector('main');
            return main !== null && !/Loading/.test(main.textContent ?? '');
          });
          assertClean(await page.evaluate(injected), view, 1);
          // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
          const text = await page.innerText('body');
          for (const x of PAYLOADS) if (text.includes(x)) shownAnywhere.add(x);
        }
        // Shown as the very characters (some others read humanized: "window  pwned=1").
        assert.ok(
          shownAnywhere.has(PAYLOADS[0]!) && shownAnywhere.has(PAYLOADS[1]!),
          `payloads shown as text: ${[...shownAnywhere].join(' | ')}`,
        );
      } finally {
        await page.close();
      }
    });
  });
});
