import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  computedImports,
  computedImportsUnder,
  type ImportEdge,
  violationsIn,
  violationsOf,
} from '../support/layering.ts';

// The dependency directions of docs/architecture.md are checked on the real tree by
// dependency-cruiser in `npm run lint` (.dependency-cruiser.cjs). Here its rules are given one
// bad import per rule on a made-up tree, and the imports close to it: the rules can fail, and
// refuse only what they should. And what it cannot see: a computed dynamic import.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One edge that breaks each rule and some close to it that do not. */
const CASES: Array<{ rule: string; bad: ImportEdge[]; good: ImportEdge[] }> = [
  {
    rule: 'surface-imports-store-or-policy',
    bad: [
      { file: 'src/surfaces/http/routes.ts', specifier: '../../store/store.ts' },
      { file: 'src/surfaces/mcp/tools/query.ts', specifier: '../../../policy/scope.ts' },
      { file: 'src/surfaces/shared/bearer.ts', specifier: '../../store/sqlite/sqlite-store.ts' },
    ],
    good: [
      { file: 'src/surfaces/http/routes.ts', specifier: '../../operations/read-claims.ts' },
      { file: 'src/surfaces/shared/bearer.ts', specifier: '../../auth/tokens.ts' },
    ],
  },
  {
    rule: 'surface-imports-another-surface',
    bad: [
      { file: 'src/surfaces/http/app.ts', specifier: '../mcp/app.ts' },
      { file: 'src/surfaces/http/oauth/mount.ts', specifier: '../../web/respond.ts' },
    ],
    good: [
      { file: 'src/surfaces/http/oauth/mount.ts', specifier: '../routes.ts' },
      { file: 'src/surfaces/mcp/app.ts', specifier: '../shared/bearer.ts' },
      { file: 'src/surfaces/mcp/presentation.ts', specifier: '../json-text.ts' },
      { file: 'src/server.ts', specifier: './surfaces/http/app.ts' },
    ],
  },
  {
    rule: 'shared-edge-imports-a-surface',
    bad: [
      { file: 'src/surfaces/shared/rate-limit.ts', specifier: '../http/errors.ts' },
      { file: 'src/surfaces/json-text.ts', specifier: './mcp/presentation.ts' },
    ],
    good: [{ file: 'src/surfaces/shared/bearer.ts', specifier: '../json-text.ts' }],
  },
  {
    rule: 'pure-imports-a-layer-above',
    bad: [
      { file: 'src/policy/scope.ts', specifier: '../store/store.ts' },
      { file: 'src/resolve/effective.ts', specifier: '../operations/deps.ts' },
      { file: 'src/policy/grant.ts', specifier: '../auth/tokens.ts', typeOnly: true },
      { file: 'src/resolve/derived-views/x.ts', specifier: '../../surfaces/http/errors.ts' },
      { file: 'src/policy/scope.ts', specifier: '../surfaces/json-text.ts' },
    ],
    good: [
      { file: 'src/policy/scope.ts', specifier: '../model/grant-record.ts' },
      { file: 'src/resolve/derived-views/x.ts', specifier: '../../policy/visibility.ts' },
      { file: 'src/operations/deps.ts', specifier: '../store/store.ts' },
    ],
  },
  {
    rule: 'pure-imports-io-builtin',
    bad: [
      { file: 'src/resolve/lifecycle.ts', specifier: 'node:fs' },
      { file: 'src/policy/scope.ts', specifier: 'node:fs/promises' },
      { file: 'src/policy/scope.ts', specifier: 'fs' },
      { file: 'src/resolve/effective.ts', specifier: 'node:sqlite' },
      { file: 'src/model/claim.ts', specifier: 'node:http' },
    ],
    good: [
      { file: 'src/resolve/effective.ts', specifier: 'node:crypto' },
      { file: 'src/policy/scope.ts', specifier: 'node:util' },
    ],
  },
  {
    rule: 'pure-imports-a-package',
    bad: [
      { file: 'src/resolve/effective.ts', specifier: 'pg' },
      { file: 'src/policy/scope.ts', specifier: '@hono/node-server' },
      { file: 'src/model/claim.ts', specifier: 'hono' },
    ],
    good: [
      { file: 'src/policy/scope.ts', specifier: 'zod' },
      { file: 'src/model/claim.ts', specifier: 'zod' },
    ],
  },
  {
    rule: 'model-imports-ours',
    bad: [
      { file: 'src/model/grant-record.ts', specifier: '../policy/scope.ts' },
      { file: 'src/model/claim.ts', specifier: '../config.ts' },
      { file: 'src/model/schemas/x.ts', specifier: '../../store/store.ts', typeOnly: true },
    ],
    good: [
      { file: 'src/model/grant-record.ts', specifier: './ids.ts' },
      { file: 'src/model/schemas/x.ts', specifier: '../errors.ts' },
    ],
  },
  {
    rule: 'cache-imports-ours',
    bad: [{ file: 'src/cache/identity-memo.ts', specifier: '../model/claim.ts', typeOnly: true }],
    good: [{ file: 'src/cache/identity-memo.ts', specifier: './other-memo.ts' }],
  },
  {
    rule: 'surface-imports-the-top',
    bad: [
      { file: 'src/surfaces/http/app.ts', specifier: '../../server.ts' },
      { file: 'src/surfaces/web/app.ts', specifier: '../../provider.ts' },
      { file: 'src/surfaces/shared/errors.ts', specifier: '../../cli/args.ts' },
    ],
    good: [
      { file: 'src/surfaces/mcp/app.ts', specifier: './server.ts' },
      { file: 'src/surfaces/http/app.ts', specifier: '../../operations/deps.ts' },
    ],
  },
  {
    rule: 'operations-import-a-surface',
    bad: [
      { file: 'src/operations/grants.ts', specifier: '../surfaces/http/app.ts' },
      { file: 'src/operations/oauth/token.ts', specifier: '../../surfaces/shared/errors.ts' },
      { file: 'src/operations/grants.ts', specifier: '../server.ts' },
      { file: 'src/operations/grants.ts', specifier: '../cli/args.ts' },
    ],
    good: [
      { file: 'src/operations/grants.ts', specifier: '../store/store.ts' },
      { file: 'src/operations/grants.ts', specifier: '../policy/scope.ts' },
      { file: 'src/operations/catalog/index.ts', specifier: '../grants.ts' },
    ],
  },
  {
    rule: 'store-imports-a-layer-above',
    bad: [
      { file: 'src/store/store.ts', specifier: '../operations/deps.ts' },
      { file: 'src/store/sqlite/queries.ts', specifier: '../../policy/scope.ts' },
      { file: 'src/store/store.ts', specifier: '../auth/tokens.ts' },
    ],
    good: [
      { file: 'src/store/sqlite/queries.ts', specifier: '../../model/claim.ts' },
      { file: 'src/store/sqlite/queries.ts', specifier: '../store.ts' },
      { file: 'src/store/sqlite/queries.ts', specifier: 'node:sqlite' },
    ],
  },
  {
    rule: 'auth-imports-a-layer-above',
    bad: [
      { file: 'src/auth/tokens.ts', specifier: '../operations/deps.ts' },
      { file: 'src/auth/tokens.ts', specifier: '../surfaces/shared/errors.ts' },
    ],
    good: [
      { file: 'src/auth/signing-keys.ts', specifier: '../store/store.ts' },
      { file: 'src/auth/tokens.ts', specifier: './signing-keys.ts' },
    ],
  },
  {
    rule: 'store-driver-imports-another',
    bad: [
      { file: 'src/store/postgres/rows.ts', specifier: '../sqlite/rows.ts' },
      { file: 'src/store/sqlite/queries.ts', specifier: '../postgres/sql.ts' },
    ],
    good: [
      { file: 'src/store/postgres/audit-queries.ts', specifier: '../audit-rows.ts' },
      { file: 'src/store/sqlite/sqlite-store.ts', specifier: './queries.ts' },
      { file: 'src/store/transfer/sqlite-side.ts', specifier: '../sqlite/sqlite-store.ts' },
      { file: 'src/provider.ts', specifier: './store/sqlite/sqlite-store.ts' },
    ],
  },
  {
    rule: 'store-core-imports-a-driver',
    bad: [
      { file: 'src/store/tx-shell.ts', specifier: './sqlite/queries.ts' },
      { file: 'src/store/rows.ts', specifier: './postgres/sql.ts' },
    ],
    good: [{ file: 'src/store/sqlite/sqlite-store.ts', specifier: '../tx-shell.ts' }],
  },
  {
    rule: 'store-outside-operations',
    bad: [
      { file: 'src/cli/seed.ts', specifier: '../store/store.ts', typeOnly: true },
      { file: 'src/auth/tokens.ts', specifier: '../store/store.ts' },
      { file: 'src/config.ts', specifier: './store/sqlite/sqlite-store.ts' },
    ],
    good: [
      { file: 'src/cli/migrate.ts', specifier: '../store/transfer/transfer.ts' },
      { file: 'src/cli/mint/base-url.ts', specifier: '../../store/store.ts', typeOnly: true },
      { file: 'src/provider.ts', specifier: './store/store.ts' },
    ],
  },
  {
    rule: 'auth-outside-operations',
    bad: [
      { file: 'src/surfaces/http/routes.ts', specifier: '../../auth/tokens.ts' },
      { file: 'src/cli/seed.ts', specifier: '../auth/passwords.ts' },
    ],
    good: [
      { file: 'src/operations/grants.ts', specifier: '../auth/tokens.ts' },
      { file: 'src/provider.ts', specifier: './auth/signing-keys.ts' },
    ],
  },
  {
    rule: 'src-imports-a-dev-dependency',
    bad: [{ file: 'src/surfaces/agui/app.ts', specifier: '@ag-ui/client' }],
    good: [
      { file: 'src/surfaces/agui/app.ts', specifier: '@ag-ui/core' },
      { file: 'src/surfaces/agui/types.ts', specifier: '@ag-ui/client', typeOnly: true },
    ],
  },
  {
    rule: 'web-app-imports-server-code',
    bad: [
      { file: 'web/app/src/app.ts', specifier: '../../../src/operations/grants.ts' },
      { file: 'web/app/src/views/x.ts', specifier: '../../../../src/surfaces/web/escape.ts' },
      { file: 'web/app/src/app.ts', specifier: '../../../src/surfaces/shared/session.ts' },
    ],
    good: [
      { file: 'web/app/src/app.ts', specifier: './dom.ts' },
      { file: 'web/app/src/app.ts', specifier: '../../../src/model/claim.ts' },
      { file: 'web/app/src/app.ts', specifier: '../../../src/policy/narrowing.ts' },
      { file: 'web/app/src/app.ts', specifier: '../../../src/surfaces/shared/a2ui/index.ts' },
      { file: 'web/app/src/words.ts', specifier: '../../../src/surfaces/shared/describe.ts' },
      {
        file: 'web/app/src/context.ts',
        specifier: '../../../src/operations/review-state.ts',
        typeOnly: true,
      },
      { file: 'web/app/src/actions.ts', specifier: '@ag-ui/client' },
    ],
  },
  {
    rule: 'web-app-names-the-store',
    bad: [
      { file: 'web/app/src/context.ts', specifier: '../../../src/store/store.ts', typeOnly: true },
      { file: 'web/app/src/context.ts', specifier: '../../../src/provider.ts', typeOnly: true },
    ],
    good: [{ file: 'web/app/src/context.ts', specifier: '../../../src/model/claim.ts', typeOnly: true }],
  },
  {
    rule: 'web-app-imports-a-builtin',
    bad: [
      { file: 'web/app/src/app.ts', specifier: 'node:crypto' },
      { file: 'web/app/src/app.ts', specifier: 'fs' },
    ],
    good: [],
  },
  {
    rule: 'bundled-shared-imports-server-code',
    bad: [
      {
        file: 'src/surfaces/shared/a2ui/consent-request-form.ts',
        specifier: '../../../operations/consent/decide.ts',
      },
      { file: 'src/surfaces/shared/describe.ts', specifier: './session.ts' },
    ],
    good: [
      {
        file: 'src/surfaces/shared/a2ui/consent-request-form.ts',
        specifier: '../../../operations/consent/narrowing-choices.ts',
      },
      { file: 'src/surfaces/shared/describe.ts', specifier: './key-words.ts' },
      {
        file: 'src/surfaces/shared/a2ui/index.ts',
        specifier: '../../../operations/review-state.ts',
        typeOnly: true,
      },
    ],
  },
  {
    rule: 'bundled-shared-imports-a-builtin',
    bad: [{ file: 'src/surfaces/shared/a2ui/words.ts', specifier: 'node:crypto' }],
    good: [{ file: 'src/surfaces/shared/bearer.ts', specifier: 'node:crypto' }],
  },
  {
    rule: 'not-to-unresolvable',
    bad: [{ file: 'src/model/ids.ts', specifier: 'no-such-package' }],
    good: [],
  },
];

const TREE_RULES = new Set(['no-runtime-cycle', 'no-orphans']);
const key = (from: string, to: string) => `${from} -> ${to}`;
/** A relative specifier as the path depcruise reports, a bare one as it is. */
const target = (e: ImportEdge) =>
  e.specifier.startsWith('.') ? new URL(e.specifier, `file:///${e.file}`).pathname.slice(1) : e.specifier;

describe('layering (dependency-cruiser)', () => {
  it('every rule refuses its bad imports and allows those near them', () => {
    // One tree for every case at once: one run of dependency-cruiser.
    const violations = violationsOf(CASES.flatMap((c) => [...c.bad, ...c.good]));
    const found = new Map<string, Set<string>>();
    for (const v of violations) {
      const k = key(v.from, v.to.replace(/^node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1').replace(/^node:/, ''));
      found.set(k, (found.get(k) ?? new Set()).add(v.rule));
    }
    // The tree mixes every case's files, so it has cycles and orphans of its own: those rules
    // are tested apart (below), not here.
    const named = (e: ImportEdge) =>
      [...(found.get(key(e.file, target(e).replace(/^node:/, ''))) ?? [])].filter((r) => !TREE_RULES.has(r));
    for (const { rule, bad, good } of CASES) {
      for (const e of bad) assert.ok(named(e).includes(rule), `${rule} refuses ${key(e.file, e.specifier)}`);
      for (const e of good)
        assert.deepEqual(named(e), [], `nothing refuses ${key(e.file, e.specifier)} (${rule})`);
    }
  });

  it('every kind of import is seen, and imports inside comments or strings are not', () => {
    const kinds = [
      "import { a } from '../policy/a.ts';",
      "import type { B } from '../policy/b.ts';",
      "import { type C, d } from '../policy/c.ts';",
      "import * as e from '../policy/e.ts';",
      "import '../policy/f.ts';",
      "export { g } from '../policy/g.ts';",
      "export type { H } from '../policy/h.ts';",
      "export * from '../policy/i.ts';",
      "const j = await import('../policy/j.ts');",
      'const k = await import(`../policy/k.ts`);',
      "type L = typeof import('../policy/l.ts');",
      "type M = import('../policy/m.ts').M;",
    ];
    const sources = kinds.map((text, i) => ({ file: `src/model/kind-${i}.ts`, text }));
    const targets = 'abcefghijklmno'.split('').map((x) => ({ file: `src/policy/${x}.ts`, text: '' }));
    const violations = violationsIn([
      ...sources,
      ...targets,
      { file: 'src/model/ids.ts', text: '' },
      {
        file: 'src/model/hidden.ts',
        text: "// import { x } from '../policy/n.ts';\nconst s = \"import('../policy/o.ts')\";\nimport './ids.ts';",
      },
    ]);
    assert.deepEqual(
      violations
        .filter((v) => v.rule === 'model-imports-ours')
        .map((v) => v.from)
        .sort(),
      sources.map((s) => s.file).sort(),
    );
    // n.ts and o.ts are named only in a comment and a string: nothing imports them.
    assert.deepEqual(
      violations
        .filter((v) => v.rule === 'no-orphans')
        .map((v) => v.from)
        .sort(),
      ['src/policy/n.ts', 'src/policy/o.ts'],
    );
  });

  it('no import under src/ or web/app/src/ is computed (dependency-cruiser could not follow it)', () => {
    assert.deepEqual(
      [...computedImportsUnder(ROOT, 'src'), ...computedImportsUnder(ROOT, 'web/app/src')],
      [],
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a computed import
    const computed = "const m = await import(`./computed/${name}.ts`); const n = await import('./x.ts');";
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a computed import
    assert.deepEqual(computedImports('src/x.ts', computed), ['<computed> `./computed/${name}.ts`']);
  });
});
