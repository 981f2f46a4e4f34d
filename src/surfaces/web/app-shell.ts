import type { AppBundle } from './app-bundle.ts';
import { html, type SafeHtml } from './escape.ts';
import { FAVICON_PATH } from './favicon.ts';
import { hardenedPageHeaders, STYLESHEET_PATH } from './layout.ts';

// The HTML page the web app runs in (docs/web-app.md): the bundle's script and stylesheet, the
// session's CSRF token in a <meta> for the app's requests (the AG-UI stream checks it), and a
// short text for whoever sees it before (or without) the script. No inline script or style.

/** The client-side views: every one is this same page; the script draws the view its path names. */
export const APP_VIEWS = [
  '',
  '/access',
  '/history',
  '/activity',
  '/data',
  '/data/conflicts',
  '/data/sensitive',
  '/data/preference',
  '/receipts',
  '/security',
] as const;

/** The headers of the app's page: its CSP allows its own scripts, styles and requests only. */
export function appSecurityHeaders(): Record<string, string> {
  return hardenedPageHeaders(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
}

export interface ShellInput {
  readonly bundle: AppBundle;
  readonly csrf: string;
  readonly username: string;
  readonly providerName: string;
}

export function appShell(input: ShellInput): SafeHtml {
  const styles = input.bundle.styles.map((href) => html`<link rel="stylesheet" href="${href}">`);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<title>Your preferences · ${input.providerName}</title>
<meta name="ppx-csrf" content="${input.csrf}">
<meta name="ppx-provider" content="${input.providerName}">
<meta name="ppx-username" content="${input.username}">
<link rel="icon" href="data:,">
${styles}
<script type="module" src="${input.bundle.script}"></script>
</head>
<body>
<div id="app">
<header class="top"><span class="brand">${input.providerName}</span></header>
<main id="main"><p>Loading your preferences…</p>
<noscript><p>This page needs JavaScript to show your preferences. To answer a request from an app, open the link the app gave you.</p></noscript>
</main>
</div>
</body>
</html>
`;
}

/** What /app answers while the bundle has not been built: words, with the server's own styles. */
export function missingBundlePage(providerName: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not available yet · ${providerName}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<header class="top"><span class="brand">${providerName}</span></header>
<main><section class="card">
<h1>This page is not available yet</h1>
<p>The page that shows your preferences has not been installed on this server. Whoever runs it can add it with <strong>npm run build:app</strong>.</p>
<p>Nothing is wrong with your account. To answer a request from an app, open the link the app gave you.</p>
</section></main>
</body>
</html>
`;
}
