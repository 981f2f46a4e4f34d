import { html, type SafeHtml } from './escape.ts';
import { FAVICON_PATH } from './favicon.ts';

/** Where the one stylesheet is served; pages load nothing else (no scripts at all). */
export const STYLESHEET_PATH = '/web/style.css';

/**
 * Headers on every page: no framing (clickjacking), no scripts, forms post only to this origin,
 * nothing cached, no referrer leaks the consent URL to the client's site.
 * `formTargets` lists origins a form may be redirected to after posting: Chromium checks
 * `form-action` against every redirect a form submission follows, so the consent page names the
 * client's registered redirect origin there too. Per answer, not hono's `secureHeaders`
 * middleware: that one fixes its CSP before the handler runs (docs/architecture.md).
 */
export function securityHeaders(formTargets: readonly string[] = []): Record<string, string> {
  const formAction = ["'self'", ...formTargets].join(' ');
  return hardenedPageHeaders(
    `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
}

/**
 * The CSP of a page that loads the passkey script (docs/passkeys.md): the same as every page's,
 * with this origin's scripts and requests allowed, and nothing inline.
 */
export const PASSKEY_PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** What every page carries besides its own CSP (the pages here and the web app's, app-shell.ts). */
export function hardenedPageHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

export function page(title: string, body: SafeHtml, providerName: string, script?: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${providerName}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
${script ? html`<script type="module" src="${script}"></script>` : ''}
</head>
<body>
<header class="top"><span class="brand">${providerName}</span></header>
<main>
${body}
</main>
</body>
</html>
`;
}

export function errorBox(message: string | undefined): SafeHtml {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}

export const STYLESHEET = `
:root { color-scheme: light; --ink: #1d232b; --muted: #5b6672; --line: #d8dee5; --accent: #1f5fbf;
  --stated: #13794a; --stated-bg: #e5f5ec; --guess: #8a5a00; --guess-bg: #fff6e0; --bad: #a3261c; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
  color: var(--ink); background: #f4f6f8; }
.top { background: #fff; border-bottom: 1px solid var(--line); padding: .6rem 1.25rem; }
.brand { font-weight: 600; color: var(--muted); }
main { max-width: 46rem; margin: 1.5rem auto 3rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; line-height: 1.25; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
section > h2:first-child, .card > h1:first-child { margin-top: 0; }
section, .card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; margin: 1rem 0; }
.client { display: flex; flex-wrap: wrap; align-items: baseline; gap: .5rem; }
.host { font-family: ui-monospace, "DejaVu Sans Mono", monospace; background: #eef2f7; padding: .1rem .4rem; border-radius: 4px; }
.verified { color: var(--stated); font-weight: 600; }
.unverified { color: var(--bad); font-weight: 600; }
.unvouched { font-weight: 600; border: 1px solid #b9c3ce; border-radius: 6px; padding: 0 .4rem; }
.muted, .hint { color: var(--muted); font-size: .92rem; }
ul.choices { list-style: none; padding: 0; margin: .25rem 0; }
ul.choices li { padding: .3rem 0; border-top: 1px solid #eef1f4; }
ul.choices li:first-child { border-top: 0; }
ul.keys { list-style: none; margin: .25rem 0 .25rem 1.7rem; padding: 0; }
ul.keys li { border: 0; padding: .15rem 0; }
label { cursor: pointer; }
label .what { font-weight: 600; }
input[type=checkbox] { width: 1.05rem; height: 1.05rem; margin-right: .45rem; vertical-align: -2px; }
select, input[type=text], input[type=password] { font: inherit; padding: .4rem .5rem; border: 1px solid #b9c3ce; border-radius: 6px; background: #fff; }
input[type=text], input[type=password] { width: 100%; max-width: 22rem; }
.field { margin: .75rem 0; }
.field > label, .field > .label { display: block; font-weight: 600; margin-bottom: .2rem; }
.field.fixed p { margin: 0; }
fieldset.group, fieldset.keys { border: 0; margin: 0; padding: 0; min-width: 0; }
fieldset.group > legend, fieldset.keys > legend { padding: 0; }
fieldset.group > legend > h2 { margin-top: 0; }
table.claims { width: 100%; border-collapse: collapse; font-size: .95rem; }
table.claims { table-layout: fixed; }
table.claims .area { display: block; font-size: .85rem; }
table.claims th, table.claims td { text-align: left; padding: .4rem .3rem; border-top: 1px solid #eef1f4; vertical-align: top; overflow-wrap: anywhere; }
table.claims th { font-weight: 600; color: var(--muted); border-top: 0; }
.badge { display: inline-block; font-size: .8rem; font-weight: 600; padding: .05rem .5rem; border-radius: 999px; }
.badge.stated { color: var(--stated); background: var(--stated-bg); border: 1px solid var(--stated); }
.badge.guess { color: var(--guess); background: var(--guess-bg); border: 1px dashed var(--guess); font-style: italic; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.25rem; }
button { font: inherit; font-weight: 600; padding: .55rem 1.1rem; border-radius: 8px; border: 1px solid #b9c3ce; background: #fff; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--bad); border-color: var(--bad); }
.error { background: #fdecea; border: 1px solid #f0b4ae; color: var(--bad); padding: .6rem .8rem; border-radius: 8px; }
.notice { background: #eef4fd; border: 1px solid #c5d8f5; padding: .6rem .8rem; border-radius: 8px; }
form.inline { display: inline; }
select { max-width: 100%; }
.account { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .5rem; }
.account button { font-weight: 500; padding: .25rem .7rem; font-size: .9rem; }
h3 { font-size: 1rem; margin: 0 0 .4rem; }
section.element { border-width: 2px; }
section.element section { border: 0; border-top: 1px solid #eef1f4; border-radius: 0; padding: .75rem 0 0; margin: .75rem 0 0; }
fieldset.choice { border: 1px solid var(--line); border-radius: 8px; margin: 1rem 0 0; padding: .6rem .9rem; display: flex; flex-wrap: wrap; gap: 1.25rem; }
fieldset.choice legend { font-weight: 600; padding: 0 .3rem; }
@media (max-width: 30rem) {
  main { padding: 0 .5rem; }
  section, .card { padding: .8rem .75rem; }
  table.claims { font-size: .9rem; }
}
input[type=radio] { width: 1.05rem; height: 1.05rem; margin-right: .45rem; vertical-align: -2px; }
`;
