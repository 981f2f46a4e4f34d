import type { A2uiVersion } from './a2ui-renderer.ts';

// What the provider wrote into the page for this app (src/surfaces/web/app-shell.ts), and the
// one choice the address makes: `?a2ui=v0.8` draws the surfaces from A2UI v0.8 messages instead
// of v0.9 (docs/a2ui.md, "Two versions").

function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

export interface PageConfig {
  /** The session's CSRF token: sent as X-CSRF-Token on every request that changes something. */
  readonly csrf: string;
  readonly providerName: string;
  readonly username: string;
  /** The A2UI version the surfaces are made and drawn in: v0.9 unless the address asks for v0.8. */
  readonly a2ui: A2uiVersion;
}

export function pageConfig(): PageConfig {
  return {
    csrf: meta('ppx-csrf'),
    providerName: meta('ppx-provider'),
    username: meta('ppx-username'),
    a2ui: a2uiVersion(location.search),
  };
}

/** `v0.8` when the query says `a2ui=v0.8`, else `v0.9`. */
function a2uiVersion(search: string): A2uiVersion {
  return new URLSearchParams(search).get('a2ui') === 'v0.8' ? 'v0.8' : 'v0.9';
}
