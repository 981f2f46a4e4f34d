import { type Env, Hono, type MiddlewareHandler } from 'hono';
import type { Deps } from '../../operations/deps.ts';
import { readBodyBytes } from '../shared/body.ts';
import { cookiePlan } from '../shared/session.ts';
import { appBundleLoader, DEFAULT_APP_DIR } from './app-bundle.ts';
import { registerAppRoutes } from './app-routes.ts';
import { registerAuthorizeRoutes } from './authorize-routes.ts';
import { registerConsentRoutes } from './consent-routes.ts';
import { html } from './escape.ts';
import { FAVICON_HEADERS, FAVICON_PATH, FAVICON_SVG } from './favicon.ts';
import { STYLESHEET, STYLESHEET_PATH } from './layout.ts';
import { registerPasskeyPages } from './passkey-pages.ts';
import { registerPasskeyRoutes } from './passkey-routes.ts';
import { providerName, send, type WebContext } from './respond.ts';
import { messagePage, passwordSignIn, type SignInMethod } from './signin.ts';
import { registerSignInRoutes } from './signin-routes.ts';
import { registerSignupRoutes } from './signup.ts';

export interface WebOptions {
  readonly log: (msg: string) => void;
  /** `--enable-signup` / PPX_ENABLE_SIGNUP=1: people may create their own account. */
  readonly signupEnabled?: boolean;
  /** How people sign in; the password method by default. */
  readonly signIn?: SignInMethod;
  /** `--dev-allow-http-client-metadata`: OAuth client metadata documents over http (docs/oauth.md). */
  readonly devAllowHttpClientMetadata?: boolean;
  /** Where the web app's built files are (dist/app by default; docs/web-app.md). */
  readonly appDir?: URL;
}

const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * The server-rendered pages: sign-in, the OAuth authorization endpoint, the consent page and its
 * decision, optional sign-up; no scripts, every state-changing form carries a CSRF token and
 * cross-site posts are refused. And the person's web app at /app (app-routes.ts), the one page
 * with a script: its own bundle, under a CSP that allows nothing else.
 */
export function createWebApp(deps: Deps, options: WebOptions): Hono {
  const web: WebContext = {
    deps,
    plan: cookiePlan(deps.provider.baseUrl),
    signIn: options.signIn ?? passwordSignIn,
    signupEnabled: options.signupEnabled === true,
    log: options.log,
    passkeyScript: passkeyScriptOf(options.appDir ?? DEFAULT_APP_DIR, options.log),
  };
  const app = new Hono();
  const form = formBody(web);
  // The forms' body parser, on the paths that take a form: /signup only where sign-up is on, so
  // that without it there is nothing at /signup (404, not a 405 naming POST).
  const forms = ['/signin', '/signout', '/consent/:id/decision', ...(web.signupEnabled ? ['/signup'] : [])];
  for (const path of forms) app.post(path, form);

  app.get(STYLESHEET_PATH, (c) =>
    c.body(STYLESHEET, 200, {
      'Content-Type': 'text/css; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    }),
  );
  for (const path of [FAVICON_PATH, '/favicon.ico'])
    app.get(path, (c) => c.body(FAVICON_SVG, 200, FAVICON_HEADERS));
  registerSignInRoutes(app, web);
  registerPasskeyRoutes(app, web);
  registerPasskeyPages(app, web);
  registerConsentRoutes(app, web);
  registerAuthorizeRoutes(app, web, options.devAllowHttpClientMetadata === true);
  registerAppRoutes(app, web, options.appDir ?? DEFAULT_APP_DIR);
  if (web.signupEnabled) registerSignupRoutes(app, web);

  app.onError((err, c) => {
    options.log(`web: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return send(
      c,
      messagePage(
        providerName(web),
        'Something went wrong',
        'The page could not be shown. Try again.',
        html``,
      ),
      500,
    );
  });
  return app;
}

/**
 * Reads a form post through the shared body reader before its handler: at most 64 KiB, and an
 * upload the client cut off (or a chunked body Node's parser refused) is the client's failure,
 * answered with a page and never logged. The handler then reads the form from the bytes read here.
 */
function formBody(web: WebContext): MiddlewareHandler {
  return async (c, next) => {
    const env = c.env as { incoming?: AsyncIterable<Uint8Array> } | undefined;
    const body = await readBodyBytes(
      {
        stream: env?.incoming ?? c.req.raw.body,
        contentLength: c.req.header('content-length'),
        contentType: c.req.header('content-type'),
      },
      FORM_LIMIT_BYTES,
    );
    if (!body.ok) {
      const tooLarge = body.error.code === 'payload_too_large';
      const page = tooLarge
        ? messagePage(providerName(web), 'Form too large', 'That form was too large to accept.')
        : messagePage(
            providerName(web),
            'The form did not arrive',
            'The form was cut off on its way here. Try again.',
          );
      return send(c, page, tooLarge ? 413 : 400);
    }
    c.req.raw = new Request(c.req.raw, { body: body.value });
    return next();
  };
}

function passkeyScriptOf(dir: URL, log: (msg: string) => void): () => Promise<string | undefined> {
  const bundle = appBundleLoader(dir, log);
  return async () => (await bundle())?.passkeyScript;
}

/** Mounts the pages on the root app (src/server.ts). */
export function mountWebPages<E extends Env>(app: Hono<E>, deps: Deps, options: WebOptions): void {
  app.route('/', createWebApp(deps, options));
}
