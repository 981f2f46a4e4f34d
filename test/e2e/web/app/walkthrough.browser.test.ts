import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { issueSubjectToken } from '../../../../src/operations/tokens/issue-tokens.ts';
import { resourceUrl } from '../../../../src/operations/tokens/resources.ts';
import { surfaceIdFor } from '../../../../src/surfaces/shared/a2ui/ids.ts';
import { launchChromium, SKIP_NO_CHROMIUM } from '../../../support/chromium.ts';
import { cleanEnv, runCli } from '../../../support/cli.ts';
import { codeRequest, pkce, postForm, REDIRECT, register } from '../../../support/oauth-flow.ts';
import { api, startTestProvider, type TestProvider } from '../../../support/provider.ts';
import { skipWhen } from '../../../support/skip.ts';
import { live, noticeSays, screenshot } from '../../../support/web-app.ts';
import { virtualAuthenticator } from '../../../support/webauthn.ts';

// Issue 26's walk-through, as a new person lives it, in Chromium: sign up with a passkey only
// (the virtual authenticator); an app asks over OAuth and is given less than it asked for; the
// app suggests a change against what the person said, and the person sees now → suggested and
// picks; the person revokes the app after a confirmation step; the app's refused call appears
// in the activity log without a reload; the person downloads the receipt of the revocation, and
// `ppx receipt verify` says it is genuine.

describe('a new person, from a passkey sign-up to a verified receipt', skipWhen(SKIP_NO_CHROMIUM), () => {
  let p: TestProvider;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let dir: string;
  // Passkeys belong to a host name: the provider serves as localhost, and the browser goes there.
  const base = () => p.deps.provider.baseUrl.replace(/\/$/, '');
  const said = { namespace: 'fragrance', key: 'sweetness_preference', value: 0.2 };
  let access = '';

  before(async () => {
    p = await startTestProvider({ env: { PPX_HOST: 'localhost', PPX_ENABLE_SIGNUP: '1' } });
    browser = await launchChromium();
    page = await browser.context.newPage();
    dir = mkdtempSync(join(tmpdir(), 'ppx-walkthrough-'));
  });
  after(async () => {
    await browser?.close();
    await p?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('1. signs up with a passkey and no password', async () => {
    await virtualAuthenticator(page);
    await page.goto(`${base()}/signup`);
    await page.fill('#passkey-username', 'new-person');
    await page.click('button[data-passkey="signup"]');
    await page.waitForURL(/\/app$/);
    await live(page);
    const subject = await p.store.getSubjectByUsername('new-person');
    assert.equal(subject?.password_hash, '', 'no password');
    // What the person said about themselves before any app came (as their own statement).
    const own = (await issueSubjectToken(p.deps, subject!.subject_id)).access_token;
    const stated = await api(p.url, '/v1/profile/propose-updates', {
      token: own,
      body: {
        claims: [
          {
            type: 'preference',
            ...said,
            value_type: 'float',
            units: 'normalized_0_1',
            confidence: 1,
            source: { kind: 'user_stated', origin: 'web_app' },
          },
        ],
      },
    });
    assert.ok(stated.status === 200 || stated.status === 201, stated.text);
  });

  it('2. an app asks over OAuth; the person gives it less than it asked for', async () => {
    const reg = await register(p, {
      client_name: 'Scent Suggester',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(reg.status, 201);
    const clientId = reg.json.client_id as string;
    const { verifier, challenge } = pkce();
    let back: URL | undefined;
    await page.route(`${new URL(REDIRECT).origin}/**`, async (route) => {
      back = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the app' });
    });
    const authorize = codeRequest(p, clientId, challenge, {
      scope: 'ppx:read ppx:propose_update',
      resource: resourceUrl(p.deps.provider, 'api'),
    }).replace(p.url, base());
    await page.goto(authorize);
    await page.waitForSelector('button[value="approve"]');
    // Less than asked: not its travel preferences.
    await page.uncheck('input[name="namespace"][value="travel"]');
    await page.click('button[value="approve"]');
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    assert.ok(back?.searchParams.get('code'), back?.href);
    const tokens = await postForm(`${p.url}/oauth/token`, {
      grant_type: 'authorization_code',
      code: back!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    assert.equal(tokens.status, 200, tokens.text);
    access = tokens.json.access_token;
    assert.ok(tokens.json.consent_receipt, 'the app receives its receipt with its tokens');
    const grants = await api(p.url, '/v1/consent/grants', { token: access });
    assert.equal(grants.status, 200, grants.text);
    assert.ok(!grants.json.grants[0].allowed_namespaces.includes('travel'), 'narrowed');
  });

  it('3. the app suggests a change against what the person said; the person sees now → suggested and picks', async () => {
    const suggested = await api(p.url, '/v1/profile/propose-updates', {
      token: access,
      body: {
        claims: [
          {
            type: 'preference',
            ...said,
            value: 0.8,
            value_type: 'float',
            units: 'normalized_0_1',
            confidence: 0.6,
            source: { kind: 'inferred', origin: 'scent_model' },
          },
        ],
      },
    });
    assert.equal(suggested.status, 202, suggested.text);
    await page.goto(`${base()}/app/data/conflicts`);
    await live(page);
    const panel = page.locator(`#conflict-${said.namespace}-${said.key}`);
    // The panel is drawn at once and again when the history (who said it, and when) has loaded.
    // Both the history and the app's name load after the panel is first drawn.
    await panel
      .filter({ hasText: 'You said on ' })
      .filter({ hasText: /Scent Suggester.* suggested on / })
      .waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the person reads
    const words = await panel.innerText();
    assert.match(words, /You said on /);
    assert.match(words, /Scent Suggester.* suggested on /);
    assert.match(words, /Now: .+ → suggested: .+/);
    await screenshot(page, 'walkthrough-conflict');
    await page.locator(`#conflict-${said.namespace}-${said.key}-pick-1`).click();
    await noticeSays(page, /What it replaced is kept in its history/);
  });

  it('4. the person revokes the app after a confirmation step, and sees its refused call arrive in the log', async () => {
    await page.goto(`${base()}/app/access`);
    await live(page);
    const subject = await p.store.getSubjectByUsername('new-person');
    const [grant] = await p.deps.store.listGrantsBySubject(subject!.subject_id);
    const card = page.locator(`[data-surface="${surfaceIdFor('grant', grant!.grant_id)}"]`);
    await card.waitFor();
    await card.getByRole('button', { name: /revoke/i }).click();
    await page.getByRole('button', { name: 'Stop access' }).click();
    await card.waitFor({ state: 'detached' });

    await page.goto(`${base()}/app/activity`);
    await live(page);
    await page.locator('ol.log li').first().waitFor();
    // The app tries again; the person's open log shows the refusal without a reload.
    const refused = await api(p.url, '/v1/profile/summary', { token: access });
    assert.ok(refused.status === 401 || refused.status === 403, String(refused.status));
    await page
      .locator('ol.log li.denied', { hasText: /Scent Suggester.* was refused: its access had been ended/ })
      .first()
      .waitFor();
    await screenshot(page, 'walkthrough-refused-live');
  });

  it('5. downloads the receipt of the revocation, and ppx receipt verify says it is genuine', async () => {
    await page.goto(`${base()}/app/receipts`);
    await live(page);
    const revoked = page.locator('li.receipt', { hasText: /You stopped .*Scent Suggester/ }).first();
    await revoked.waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      revoked.getByRole('button', { name: /Download/ }).click(),
    ]);
    const file = join(dir, 'receipt.jwt');
    writeFileSync(file, readFileSync((await download.path())!, 'utf8'));
    writeFileSync(join(dir, 'jwks.json'), await (await fetch(`${p.url}/.well-known/jwks.json`)).text());
    const verified = await runCli(['receipt', 'verify', file, '--jwks', join(dir, 'jwks.json')], cleanEnv());
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^Genuine: signed by /);
    assert.match(verified.stdout, /revoked/);
  });
});
