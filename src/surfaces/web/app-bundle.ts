import { readFile } from 'node:fs/promises';

// The web app's built files (dist/app, written by `npm run build:app`; docs/web-app.md): vite's
// manifest names the entry's hashed script and stylesheet. Read once and kept; while the bundle is
// missing every request looks again, so building it while the provider runs is enough.

/** Where `npm run build:app` writes the bundle, relative to this file. */
export const DEFAULT_APP_DIR = new URL('../../../dist/app/', import.meta.url);

export interface AppBundle {
  /** The entry script's URL path (`/app/assets/main-….js`). */
  readonly script: string;
  /** The passkey script of the server-rendered pages (docs/passkeys.md), when built. */
  readonly passkeyScript?: string;
  readonly styles: readonly string[];
  /** The files that may be served, by URL path: only those the manifest names. */
  readonly files: ReadonlyMap<string, { readonly type: string; readonly body: Uint8Array }>;
}

interface ManifestEntry {
  readonly file: string;
  readonly isEntry?: boolean;
  readonly css?: readonly string[];
  readonly imports?: readonly string[];
  readonly assets?: readonly string[];
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  woff2: 'font/woff2',
  png: 'image/png',
};

/** A loader that keeps the bundle once found; undefined while there is none (or it is broken). */
export function appBundleLoader(dir: URL, log: (msg: string) => void): () => Promise<AppBundle | undefined> {
  let found: AppBundle | undefined;
  return async () => {
    if (found) return found;
    found = await readBundle(dir, log);
    return found;
  };
}

async function readBundle(dir: URL, log: (msg: string) => void): Promise<AppBundle | undefined> {
  let manifest: Record<string, ManifestEntry>;
  try {
    manifest = JSON.parse(await readFile(new URL('.vite/manifest.json', dir), 'utf8'));
  } catch {
    return undefined;
  }
  const entry = manifest['src/main.ts'] ?? Object.values(manifest).find((e) => e.isEntry);
  const passkey = manifest['src/passkey-page.ts'];
  if (!entry) {
    log('web app: dist/app/.vite/manifest.json names no entry; run npm run build:app');
    return undefined;
  }
  const names = new Set<string>();
  for (const e of Object.values(manifest)) {
    for (const f of [e.file, ...(e.css ?? []), ...(e.assets ?? [])]) names.add(f);
  }
  const files = new Map<string, { type: string; body: Uint8Array }>();
  try {
    for (const name of names) {
      const ext = name.slice(name.lastIndexOf('.') + 1);
      const type = TYPES[ext];
      if (type === undefined || name.includes('..')) continue;
      files.set(`/app/${name}`, { type, body: await readFile(new URL(name, dir)) });
    }
  } catch (err) {
    log(`web app: the bundle in dist/app is incomplete (${(err as Error).message}); run npm run build:app`);
    return undefined;
  }
  return {
    script: `/app/${entry.file}`,
    ...(passkey ? { passkeyScript: `/app/${passkey.file}` } : {}),
    styles: (entry.css ?? []).map((f) => `/app/${f}`),
    files,
  };
}
