import { type Env, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Deps } from '../../operations/deps.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import { registerConsentRoutes } from './consent-routes.ts';
import { html } from './escape.ts';
import { STYLESHEET, STYLESHEET_PATH } from './layout.ts';
import { providerName, send, type WebContext } from './respond.ts';
import { cookiePlan } from './session.ts';
import { messagePage, passwordSignIn, type SignInMethod } from './signin.ts';
import { registerSignInRoutes } from './signin-routes.ts';
import { registerSignupRoutes } from './signup.ts';

export interface WebOptions {
  readonly log: (msg: string) => void;
  /** The HTTP rate limit; 0 turns the sign-in attempt limit off too. */
  readonly rateLimit?: number;
  /** `--enable-signup` / PPX_ENABLE_SIGNUP=1: people may create their own account. */
  readonly signupEnabled?: boolean;
  /** How people sign in; the password method by default. */
  readonly signIn?: SignInMethod;
}

/** Sign-in attempts allowed per address in each window. */
const ATTEMPTS_PER_WINDOW = 20;
const ATTEMPT_WINDOW_SECONDS = 300;
const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * The server-rendered pages: sign-in, the consent page and its decision, optional sign-up. No
 * scripts; every state-changing form carries a CSRF token and cross-site posts are refused.
 */
export function createWebApp(deps: Deps, options: WebOptions): Hono {
  const web: WebContext = {
    deps,
    plan: cookiePlan(deps.provider.baseUrl),
    signIn: options.signIn ?? passwordSignIn,
    signupEnabled: options.signupEnabled === true,
    attempts: new RateLimiter(options.rateLimit === 0 ? 0 : ATTEMPTS_PER_WINDOW, ATTEMPT_WINDOW_SECONDS),
    log: options.log,
  };
  const app = new Hono();
  const limit = bodyLimit({
    maxSize: FORM_LIMIT_BYTES,
    onError: (c) =>
      send(c, messagePage(providerName(web), 'Form too large', 'That form was too large to accept.'), 413),
  });
  for (const path of ['/signin', '/signout', '/signup', '/consent/:id/decision']) app.post(path, limit);

  app.get(STYLESHEET_PATH, (c) =>
    c.body(STYLESHEET, 200, {
      'Content-Type': 'text/css; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    }),
  );
  registerSignInRoutes(app, web);
  registerConsentRoutes(app, web);
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

/** Mounts the pages on the HTTP app (one line in surfaces/http/app.ts). */
export function mountWebPages<E extends Env>(app: Hono<E>, deps: Deps, options: WebOptions): void {
  app.route('/', createWebApp(deps, options));
}
