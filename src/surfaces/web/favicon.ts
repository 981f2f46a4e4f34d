// The site's icon: browsers ask for /favicon.ico on every page, and a 404 there is noise in
// every log and console. A small SVG (a rounded square with a check mark, the brand's blue),
// served at both paths; pages name it with <link rel="icon">.

export const FAVICON_PATH = '/favicon.svg';

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fa3"/><path d="M9 16.5l4.5 4.5L23 11" fill="none" stroke="#fff" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/></svg>';

export const FAVICON_HEADERS = {
  'Content-Type': 'image/svg+xml',
  'Cache-Control': 'public, max-age=86400',
  'X-Content-Type-Options': 'nosniff',
} as const;
