// The dependency directions of docs/architecture.md, checked on every import of src/ and of the
// web app's sources (web/app/src/) by `npm run lint`. Type-only imports count as imports, as in
// the architecture: a layer may not even name the types of a layer it may not use. Regexes match
// the paths dependency-cruiser reports (relative to the repository; npm packages under
// node_modules/, Node built-ins by their bare name).

/** Node built-ins that pure code may use: neither does I/O. */
const PURE_BUILTINS = '^(crypto|util)$';
/** npm packages that pure code may use. */
const PURE_PACKAGES = '^node_modules/zod/';
/** What the composition root and the CLI are: above every layer. */
const TOP = '^src/(server|provider|cli)(\\.ts$|/)';
/**
 * The shared modules the web app's bundle takes from src/ at run time (the A2UI components, the
 * words), and the pure re-export the components take from the consent operations.
 */
const BUNDLED_SHARED =
  '^src/surfaces/shared/(a2ui/|(describe|key-words|receipt-words|value-kind|writeback-words)\\.ts$)|^src/operations/consent/narrowing-choices\\.ts$';
/** What bundled code may reach at run time in src/: the pure layers and the bundled shared modules. */
const BUNDLE_SAFE = `^src/(model|policy|resolve)/|${BUNDLED_SHARED}`;

/** Imports that name only types, erased before run time. */
const TYPES_ONLY = ['type-only', 'type-import'];

/** One rule: `from` may not import `to`. */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    // model <- policy, resolve <- operations <- surfaces, cli
    forbid(
      'model-imports-ours',
      'model imports nothing of ours outside model/',
      { path: '^src/model/' },
      { path: '^src/', pathNot: '^src/model/' },
    ),
    forbid(
      'cache-imports-ours',
      'cache/ (memos every layer may use) imports nothing of ours: it knows no PPX object',
      { path: '^src/cache/' },
      { path: '^src/', pathNot: '^src/cache/' },
    ),
    forbid(
      'pure-imports-a-layer-above',
      'policy/ and resolve/ are pure: no store, operations, auth or surface',
      { path: '^src/(policy|resolve)/' },
      { path: '^src/(store|operations|auth|surfaces)/|' + TOP },
    ),
    forbid(
      'pure-imports-io-builtin',
      'model/, policy/ and resolve/ do no I/O: of the Node built-ins only crypto and util',
      { path: '^src/(model|policy|resolve)/' },
      { dependencyTypes: ['core'], pathNot: PURE_BUILTINS },
    ),
    forbid(
      'pure-imports-a-package',
      'model/, policy/ and resolve/ do no I/O: of npm packages only zod (add a pure one here)',
      { path: '^src/(model|policy|resolve)/' },
      { path: '^node_modules/', pathNot: PURE_PACKAGES },
    ),
    forbid(
      'operations-import-a-surface',
      'operations import no surface, nor the composition root or the CLI',
      { path: '^src/operations/' },
      { path: '^src/surfaces/|' + TOP },
    ),
    forbid(
      'surface-imports-store-or-policy',
      'surfaces reach the store and policy only through operations',
      { path: '^src/surfaces/' },
      { path: '^src/(store|policy)/' },
    ),
    forbid(
      'surface-imports-the-top',
      'surfaces import neither the composition root nor the CLI: server.ts mounts them',
      { path: '^src/surfaces/' },
      { path: TOP },
    ),
    forbid(
      'surface-imports-another-surface',
      'no surface imports another: what they share is surfaces/shared/ (and files directly in surfaces/)',
      { path: '^src/surfaces/([^/]+)/', pathNot: '^src/surfaces/shared/' },
      { path: '^src/surfaces/[^/]+/', pathNot: '^src/surfaces/($1|shared)/' },
    ),
    forbid(
      'shared-edge-imports-a-surface',
      'what the surfaces share imports none of them',
      { path: '^src/surfaces/(shared/|[^/]+$)' },
      { path: '^src/surfaces/[^/]+/', pathNot: '^src/surfaces/shared/' },
    ),
    forbid(
      'store-imports-a-layer-above',
      'the store knows the model and itself only',
      { path: '^src/store/' },
      { path: '^src/', pathNot: '^src/(model|store)/' },
    ),
    forbid(
      'auth-imports-a-layer-above',
      'auth knows the model, itself and the store it keeps its key in',
      { path: '^src/auth/' },
      { path: '^src/', pathNot: '^src/(model|store|auth)/' },
    ),
    forbid(
      'store-driver-imports-another',
      'neither store driver imports the other (docs/store.md)',
      { path: '^src/store/(sqlite|postgres)/' },
      { path: '^src/store/(sqlite|postgres)/', pathNot: '^src/store/$1/' },
    ),
    forbid(
      'store-core-imports-a-driver',
      'what both drivers share (src/store/*.ts) imports neither',
      { path: '^src/store/[^/]+$' },
      { path: '^src/store/(sqlite|postgres)/' },
    ),
    forbid(
      'store-outside-operations',
      'the store is reached through operations and provider.ts, and by the three modules that work on ' +
        'a store before or beside a provider (docs/architecture.md) and the type open-provider.ts names',
      {
        pathNot: [
          '^src/(store|operations)/',
          '^src/provider\\.ts$',
          '^src/auth/signing-keys\\.ts$',
          '^src/cli/(mint/base-url|migrate|open-provider)\\.ts$',
        ],
      },
      { path: '^src/store/' },
    ),
    forbid(
      'auth-outside-operations',
      'auth is reached through operations and provider.ts, and by the front door of surfaces/shared/',
      { pathNot: ['^src/(auth|operations)/', '^src/provider\\.ts$', '^src/surfaces/shared/'] },
      { path: '^src/auth/' },
    ),
    forbid(
      'src-imports-a-dev-dependency',
      'the server runs without devDependencies (they are for tests, tools and the web app bundle)',
      { path: '^src/' },
      { dependencyTypes: ['npm-dev'], dependencyTypesNot: TYPES_ONLY },
    ),

    // The person's web app (web/app/src/, bundled by vite for the browser).
    forbid(
      'web-app-imports-server-code',
      'the web app takes from src/ only the pure layers and the bundled shared modules ' +
        '(types of the operations it is sent, too: they are erased)',
      { path: '^web/app/' },
      { path: '^src/', pathNot: BUNDLE_SAFE, dependencyTypesNot: TYPES_ONLY },
    ),
    forbid(
      'web-app-names-the-store',
      'not even a type of the store, auth, the CLI or the composition root',
      { path: '^web/app/' },
      { path: '^src/(store|auth)/|' + TOP },
    ),
    forbid(
      'web-app-imports-a-builtin',
      'the browser has no Node built-ins',
      { path: '^web/app/' },
      { dependencyTypes: ['core'] },
    ),
    forbid(
      'bundled-shared-imports-server-code',
      'what the web app bundles from src/ reaches, at run time, only the pure layers and itself',
      { path: BUNDLED_SHARED },
      { path: '^src/', pathNot: BUNDLE_SAFE, dependencyTypesNot: TYPES_ONLY },
    ),
    forbid(
      'bundled-shared-imports-a-builtin',
      'what the web app bundles from src/ uses no Node built-in',
      { path: BUNDLED_SHARED },
      { dependencyTypes: ['core'] },
    ),

    // Every import resolves; no cycle; no file left out.
    forbid('not-to-unresolvable', 'every import names a module that exists', {}, { couldNotResolve: true }),
    forbid(
      'no-runtime-cycle',
      'no cycle of run-time imports (cycles through a type-only import are erased at run time); the ' +
        'one there was when this rule came (oauth/token.ts <-> oauth/package-token.ts) is allowed',
      { pathNot: '^src/operations/oauth/(package-)?token\\.ts$' },
      { circular: true, viaOnly: { dependencyTypesNot: TYPES_ONLY } },
    ),
    forbid(
      'no-orphans',
      'a module nothing imports and that imports nothing is dead (knip finds the rest)',
      { orphan: true },
      {},
    ),
  ],
  options: {
    tsPreCompilationDeps: true,
    // A worktree's node_modules may be a symlink: packages are still node_modules/….
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: '^node_modules/' },
    exclude: { path: '^dist/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
