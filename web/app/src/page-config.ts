// What the provider wrote into the page for this app (src/surfaces/web/app-shell.ts).

function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

export interface PageConfig {
  /** The session's CSRF token: sent as X-CSRF-Token on every request that changes something. */
  readonly csrf: string;
  readonly providerName: string;
  readonly username: string;
}

export function pageConfig(): PageConfig {
  return { csrf: meta('ppx-csrf'), providerName: meta('ppx-provider'), username: meta('ppx-username') };
}
