import type { Context, Hono } from 'hono';
import type { ShownApp } from '../../model/client.ts';
import { shownApps } from '../../operations/accounts/shown-apps.ts';
import { signedInName } from '../../operations/accounts/subjects-and-sessions.ts';
import { currentSession } from '../shared/session.ts';
import { type AppBundle, appBundleLoader } from './app-bundle.ts';
import { APP_VIEWS, appSecurityHeaders, appShell, missingBundlePage } from './app-shell.ts';
import { html } from './escape.ts';
import { registerReceiptRoutes } from './receipt-routes.ts';
import { providerName, send, type WebContext } from './respond.ts';
import { messagePage } from './signin.ts';

// The person's web app at /app (docs/web-app.md): the page and its views need the signed-in
// session (without one, sign-in first and back here); the built files are served with long cache
// lifetimes (their names change with their content); /app/apps.json names the apps the app shows.

const IMMUTABLE = 'public, max-age=31536000, immutable';
const MAX_APP_IDS = 50;

export function registerAppRoutes(app: Hono, web: WebContext, appDir: URL): void {
  const bundle = appBundleLoader(appDir, web.log);

  app.get('/app/assets/:name', async (c) => {
    const file = (await bundle())?.files.get(c.req.path);
    if (!file)
      return c.text('Not found', 404, { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': file.type,
      'Cache-Control': IMMUTABLE,
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
  });

  app.get('/app/apps.json', (c) => appNames(c, web));
  registerReceiptRoutes(app, web);

  for (const view of APP_VIEWS) {
    app.get(`/app${view}`, async (c) => page(c, web, await bundle()));
  }
  // Anything else under /app is a page in words, not the API's JSON 404.
  app.get('/app/', (c) => c.body(null, 308, { Location: '/app', ...appSecurityHeaders() }));
  app.get('/app/*', (c) =>
    send(
      c,
      messagePage(
        providerName(web),
        'There is no such page',
        'This address does not lead to a page.',
        html`<p><a href="/app">See your preferences</a></p>`,
      ),
      404,
    ),
  );
}

async function page(c: Context, web: WebContext, bundle: AppBundle | undefined): Promise<Response> {
  const session = await currentSession(c, web.deps, web.plan);
  if (!session) {
    const back = c.req.path + (new URL(c.req.url).search ?? '');
    return c.body(null, 303, {
      Location: `/signin?return_to=${encodeURIComponent(back)}`,
      ...appSecurityHeaders(),
    });
  }
  const name = providerName(web);
  const headers = { 'Content-Type': 'text/html; charset=utf-8', ...appSecurityHeaders() };
  if (!bundle) return c.body(missingBundlePage(name).toString(), 503, headers);
  const username = await signedInName(web.deps, session.record);
  const body = appShell({
    bundle,
    csrf: session.csrf,
    username,
    providerName: name,
  });
  return c.body(body.toString(), 200, headers);
}

/**
 * The apps with these client ids (`?id=…`, repeated), as every page names them
 * (model/client.ts#shownApp): `{name, host?, vouched}`, the host beside any app the operator
 * did not register.
 */
async function appNames(c: Context, web: WebContext): Promise<Response> {
  const headers = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
  const session = await currentSession(c, web.deps, web.plan);
  if (!session) {
    return c.json({ error: 'invalid_token', error_description: 'You are not signed in.' }, 401, headers);
  }
  const ids = [...new Set(c.req.queries('id') ?? [])].slice(0, MAX_APP_IDS);
  const apps: Record<string, ShownApp> = Object.fromEntries(await shownApps(web.deps, ids));
  return c.json({ apps }, 200, headers);
}
