import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  describeViolations,
  type ImportEdge,
  importSpecifiers,
  type LayerRule,
  layeringViolations,
  sourceEdges,
} from '../support/layering.ts';

// The dependency directions of ../shared/design/ARCHITECTURE.md, checked on every import under
// src/: surfaces reach store and policy only through operations, no surface imports another,
// policy and resolve are pure, model imports nothing of ours.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('layering', () => {
  it('no import under src/ breaks the layering', () => {
    const edges = sourceEdges(ROOT);
    assert.ok(edges.length > 500, `the walk found the tree's imports (${edges.length})`);
    const violations = layeringViolations(edges);
    assert.equal(
      violations.length,
      0,
      `${violations.length} imports break the layering:\n${describeViolations(violations)}`,
    );
  });

  it('every import under src/ names a module the check can resolve (a literal, not a computed path)', () => {
    const computed = sourceEdges(ROOT).filter((e) => e.specifier.startsWith('<computed>'));
    assert.deepEqual(computed, []);
  });

  it('every kind of import is seen, and imports inside comments or strings are not', () => {
    const text = [
      "import { a } from './static.ts';",
      "import type { B } from './type-only.ts';",
      "import { type C, d } from './inline-type.ts';",
      "import * as e from './namespace.ts';",
      "import './side-effect.ts';",
      "export { f } from './re-export.ts';",
      "export type { G } from './type-re-export.ts';",
      "export * from './star.ts';",
      "import h = require('./require.ts');",
      "const i = await import('./dynamic.ts');",
      'const j = await import(`./template.ts`);',
      "type K = typeof import('./type-query.ts');",
      "type L = import('./type-position.ts').L;",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a computed import
      'const m = await import(`./computed/${name}.ts`);',
      "// import { x } from './in-a-comment.ts';",
      'const s = "import(\'./in-a-string.ts\')";',
    ].join('\n');
    assert.deepEqual(importSpecifiers('src/x.ts', text), [
      './static.ts',
      './type-only.ts',
      './inline-type.ts',
      './namespace.ts',
      './side-effect.ts',
      './re-export.ts',
      './type-re-export.ts',
      './star.ts',
      './require.ts',
      './dynamic.ts',
      './template.ts',
      './type-query.ts',
      './type-position.ts',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a computed import
      '<computed> `./computed/${name}.ts`',
    ]);
  });

  // One edge that breaks each rule and one close to it that does not: the check can fail.
  const CASES: Array<{ rule: LayerRule; bad: ImportEdge[]; good: ImportEdge[] }> = [
    {
      rule: 'surface imports store or policy',
      bad: [
        { file: 'src/surfaces/http/routes.ts', specifier: '../../store/store.ts' },
        { file: 'src/surfaces/mcp/tools/query.ts', specifier: '../../../policy/scope.ts' },
        { file: 'src/surfaces/shared/bearer.ts', specifier: '../../store/sqlite/sqlite-store.ts' },
      ],
      good: [
        { file: 'src/surfaces/http/routes.ts', specifier: '../../operations/read-claims.ts' },
        { file: 'src/surfaces/http/routes.ts', specifier: '../../auth/tokens.ts' },
      ],
    },
    {
      rule: 'surface imports another surface',
      bad: [
        { file: 'src/surfaces/http/app.ts', specifier: '../mcp/app.ts' },
        { file: 'src/surfaces/http/oauth/mount.ts', specifier: '../../web/respond.ts' },
        { file: 'src/surfaces/shared/rate-limit.ts', specifier: '../http/errors.ts' },
        { file: 'src/surfaces/json-text.ts', specifier: './mcp/presentation.ts' },
      ],
      good: [
        { file: 'src/surfaces/http/oauth/mount.ts', specifier: '../routes.ts' },
        { file: 'src/surfaces/mcp/app.ts', specifier: '../shared/bearer.ts' },
        { file: 'src/surfaces/mcp/presentation.ts', specifier: '../json-text.ts' },
        { file: 'src/surfaces/shared/bearer.ts', specifier: '../json-text.ts' },
        { file: 'src/server.ts', specifier: './surfaces/http/app.ts' },
      ],
    },
    {
      rule: 'policy/resolve imports store, operations, auth, a surface or I/O',
      bad: [
        { file: 'src/policy/scope.ts', specifier: '../store/store.ts' },
        { file: 'src/resolve/effective.ts', specifier: '../operations/deps.ts' },
        { file: 'src/policy/grant.ts', specifier: '../auth/tokens.ts' },
        { file: 'src/resolve/derived-views/x.ts', specifier: '../../surfaces/http/errors.ts' },
        { file: 'src/policy/scope.ts', specifier: '../surfaces/json-text.ts' },
        { file: 'src/resolve/lifecycle.ts', specifier: 'node:fs' },
        { file: 'src/policy/scope.ts', specifier: 'node:fs/promises' },
        { file: 'src/policy/scope.ts', specifier: 'fs' },
        { file: 'src/resolve/effective.ts', specifier: 'node:sqlite' },
        { file: 'src/resolve/effective.ts', specifier: 'node:http' },
        { file: 'src/resolve/effective.ts', specifier: 'pg' },
        { file: 'src/policy/scope.ts', specifier: '@hono/node-server' },
      ],
      good: [
        { file: 'src/policy/scope.ts', specifier: '../model/grant-record.ts' },
        { file: 'src/resolve/derived-views/x.ts', specifier: '../../policy/visibility.ts' },
        { file: 'src/resolve/effective.ts', specifier: 'node:crypto' },
        { file: 'src/policy/scope.ts', specifier: 'zod' },
        { file: 'src/operations/deps.ts', specifier: '../store/store.ts' },
      ],
    },
    {
      rule: 'model imports ours outside model, or I/O',
      bad: [
        { file: 'src/model/grant-record.ts', specifier: '../policy/scope.ts' },
        { file: 'src/model/claim.ts', specifier: '../config.ts' },
        { file: 'src/model/schemas/x.ts', specifier: '../../store/store.ts' },
        { file: 'src/model/claim.ts', specifier: 'node:fs' },
      ],
      good: [
        { file: 'src/model/grant-record.ts', specifier: './ids.ts' },
        { file: 'src/model/schemas/x.ts', specifier: '../errors.ts' },
        { file: 'src/model/claim.ts', specifier: 'zod' },
      ],
    },
  ];

  CASES.push(
    {
      rule: 'surface imports the composition root or the cli',
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
      rule: 'operations import a surface, the composition root or the cli',
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
      rule: 'store or auth imports a layer above it',
      bad: [
        { file: 'src/store/store.ts', specifier: '../operations/deps.ts' },
        { file: 'src/store/sqlite/queries.ts', specifier: '../../policy/scope.ts' },
        { file: 'src/store/store.ts', specifier: '../auth/tokens.ts' },
        { file: 'src/auth/tokens.ts', specifier: '../operations/deps.ts' },
        { file: 'src/auth/tokens.ts', specifier: '../surfaces/shared/errors.ts' },
      ],
      good: [
        { file: 'src/store/sqlite/queries.ts', specifier: '../../model/claim.ts' },
        { file: 'src/store/sqlite/queries.ts', specifier: '../store.ts' },
        { file: 'src/store/sqlite/queries.ts', specifier: 'node:sqlite' },
        { file: 'src/auth/signing-keys.ts', specifier: '../store/store.ts' },
        { file: 'src/auth/tokens.ts', specifier: './signing-keys.ts' },
      ],
    },
    {
      rule: 'a store driver imports another driver, or the shared store a driver',
      bad: [
        { file: 'src/store/postgres/rows.ts', specifier: '../sqlite/rows.ts' },
        { file: 'src/store/postgres/audit-queries.ts', specifier: '../sqlite/audit-queries.ts' },
        { file: 'src/store/sqlite/queries.ts', specifier: '../postgres/sql.ts' },
        { file: 'src/store/tx-shell.ts', specifier: './sqlite/queries.ts' },
        { file: 'src/store/rows.ts', specifier: './postgres/sql.ts' },
      ],
      good: [
        { file: 'src/store/postgres/audit-queries.ts', specifier: '../audit-rows.ts' },
        { file: 'src/store/sqlite/sqlite-store.ts', specifier: '../tx-shell.ts' },
        { file: 'src/store/sqlite/sqlite-store.ts', specifier: './queries.ts' },
        { file: 'src/store/postgres/postgres-store.ts', specifier: './queries.ts' },
        { file: 'src/store/transfer/sqlite-side.ts', specifier: '../sqlite/sqlite-store.ts' },
        { file: 'src/provider.ts', specifier: './store/sqlite/sqlite-store.ts' },
      ],
    },
  );

  for (const { rule, bad, good } of CASES) {
    it(`the check refuses "${rule}" and allows what is near it`, () => {
      for (const edge of bad)
        assert.deepEqual(
          layeringViolations([edge]),
          [{ ...edge, rule }],
          `${edge.file} -> ${edge.specifier}`,
        );
      for (const edge of good)
        assert.deepEqual(layeringViolations([edge]), [], `${edge.file} -> ${edge.specifier}`);
    });
  }

  it('the message names each offending import and its rule', () => {
    const edges = [
      { file: 'src/surfaces/http/app.ts', specifier: '../mcp/app.ts' },
      { file: 'src/model/ids.ts', specifier: './errors.ts' },
      { file: 'src/policy/scope.ts', specifier: 'pg' },
    ];
    assert.equal(
      describeViolations(layeringViolations(edges)),
      [
        'src/surfaces/http/app.ts -> ../mcp/app.ts  (surface imports another surface)',
        'src/policy/scope.ts -> pg  (policy/resolve imports store, operations, auth, a surface or I/O)',
      ].join('\n'),
    );
  });
});
