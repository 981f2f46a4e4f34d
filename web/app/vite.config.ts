import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The person's web app (docs/web-app.md): one entry, built into dist/app with hashed names and a
// manifest the provider reads to write the page's <script> and <link>. Nothing is fetched from
// elsewhere at run time: every dependency is bundled.

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// biome-ignore lint/style/noDefaultExport: vite reads the config from the default export
export default defineConfig({
  root: here('.'),
  base: '/app/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: here('../../dist/app'),
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    sourcemap: false,
    // A second entry: the passkey script of the server-rendered pages (docs/passkeys.md).
    rollupOptions: { input: { main: here('src/main.ts'), passkey: here('src/passkey-page.ts') } },
  },
});
