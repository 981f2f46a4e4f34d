import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import ts from 'typescript';

// The dependency directions of ../shared/design/ARCHITECTURE.md as a pure check over import
// edges, so that a test can feed it one bad edge per rule (it must be able to fail) and the real
// tree's edges (test/unit/layering.test.ts, `npm run lint:layers`).

/** One import: the importing file (repo-relative, `src/…`) and the specifier as written. */
export interface ImportEdge {
  readonly file: string;
  readonly specifier: string;
}

export type LayerRule =
  | 'surface imports store or policy'
  | 'surface imports another surface'
  | 'surface imports the composition root or the cli'
  | 'policy/resolve imports store, operations, auth, a surface or I/O'
  | 'model imports ours outside model, or I/O'
  | 'operations import a surface, the composition root or the cli'
  | 'store or auth imports a layer above it'
  | 'a store driver imports another driver, or the shared store a driver';

export interface LayerViolation extends ImportEdge {
  readonly rule: LayerRule;
}

/** Modules that do I/O: nothing under policy/ or resolve/ may import them (subpaths included). */
const IO_MODULES = new Set([
  'fs',
  'sqlite',
  'net',
  'http',
  'https',
  'dns',
  'child_process',
  'worker_threads',
  'pg',
  '@hono/node-server',
]);

/**
 * Where a repo-relative path sits. Under `src/surfaces/`, `src/surfaces/<name>/…` is the surface
 * `<name>`; files directly in `src/surfaces/` and the folder `src/surfaces/shared/` are shared
 * edge code, which every surface may import.
 */
type Place =
  | { readonly kind: 'surface'; readonly name: string }
  | { readonly kind: 'edge' }
  | { readonly kind: 'layer'; readonly name: string }
  | { readonly kind: 'outside' };

function placeOf(path: string): Place {
  const parts = path.split('/');
  if (parts[0] !== 'src') return { kind: 'outside' };
  if (parts[1] === 'surfaces') {
    return parts.length > 3 && parts[2] !== 'shared'
      ? { kind: 'surface', name: parts[2]! }
      : { kind: 'edge' };
  }
  return { kind: 'layer', name: parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, '') };
}

/** `node:fs/promises` → `fs`, `@hono/node-server/x` → `@hono/node-server`, `pg` → `pg`. */
function packageOf(specifier: string): string {
  const bare = specifier.replace(/^node:/, '');
  const parts = bare.split('/');
  return bare.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The store drivers: each keeps its SQL and its concurrency, and shares the rest through src/store/. */
const STORE_DRIVERS = new Set(['sqlite', 'postgres']);

/** `sqlite` for `src/store/sqlite/…`, `core` for a file directly in `src/store/`, else undefined. */
function storePartOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'src' || parts[1] !== 'store') return undefined;
  if (parts.length === 3) return 'core';
  return STORE_DRIVERS.has(parts[2]!) ? parts[2] : undefined;
}

/** The rule an edge breaks, or undefined. Relative specifiers resolve against the file's folder. */
function ruleBroken(edge: ImportEdge): LayerRule | undefined {
  const from = placeOf(edge.file);
  const relative = edge.specifier.startsWith('.');
  const target = relative
    ? placeOf(posix.normalize(posix.join(posix.dirname(edge.file), edge.specifier)))
    : undefined;
  const inLayer = (...names: string[]) => target?.kind === 'layer' && names.includes(target.name);

  // The composition root (server.ts, provider.ts) and the CLI sit above every layer.
  const top = inLayer('server', 'provider', 'cli');
  if (from.kind === 'surface' || from.kind === 'edge') {
    if (inLayer('store', 'policy')) return 'surface imports store or policy';
    if (target?.kind === 'surface' && (from.kind === 'edge' || target.name !== from.name))
      return 'surface imports another surface';
    if (top) return 'surface imports the composition root or the cli';
    return undefined;
  }
  if (from.kind === 'layer' && from.name === 'operations') {
    if (top || target?.kind === 'surface' || target?.kind === 'edge')
      return 'operations import a surface, the composition root or the cli';
    return undefined;
  }
  if (from.kind === 'layer' && (from.name === 'store' || from.name === 'auth')) {
    // The store knows the model; auth knows the model and the store it keeps its key in.
    const allowed = from.name === 'store' ? ['model', 'store'] : ['model', 'store', 'auth'];
    if (relative && !(target?.kind === 'layer' && allowed.includes(target.name)))
      return 'store or auth imports a layer above it';
    // Neither driver imports the other, and what both share (src/store/*.ts) imports neither.
    const fromPart = storePartOf(edge.file);
    const toPart = relative
      ? storePartOf(posix.normalize(posix.join(posix.dirname(edge.file), edge.specifier)))
      : undefined;
    if (fromPart !== undefined && toPart !== undefined && STORE_DRIVERS.has(toPart) && fromPart !== toPart)
      return 'a store driver imports another driver, or the shared store a driver';
    return undefined;
  }
  if (from.kind === 'layer' && (from.name === 'policy' || from.name === 'resolve')) {
    if (inLayer('store', 'operations', 'auth') || target?.kind === 'surface' || target?.kind === 'edge')
      return 'policy/resolve imports store, operations, auth, a surface or I/O';
    if (!relative && IO_MODULES.has(packageOf(edge.specifier)))
      return 'policy/resolve imports store, operations, auth, a surface or I/O';
    return undefined;
  }
  if (from.kind === 'layer' && from.name === 'model') {
    if (relative && !inLayer('model')) return 'model imports ours outside model, or I/O';
    if (!relative && IO_MODULES.has(packageOf(edge.specifier)))
      return 'model imports ours outside model, or I/O';
  }
  return undefined;
}

/** Every edge that breaks a rule, in the order given. */
export function layeringViolations(edges: readonly ImportEdge[]): LayerViolation[] {
  const out: LayerViolation[] = [];
  for (const edge of edges) {
    const rule = ruleBroken(edge);
    if (rule !== undefined) out.push({ ...edge, rule });
  }
  return out;
}

/** One line per violation: `file -> specifier (rule)`. */
export function describeViolations(violations: readonly LayerViolation[]): string {
  return violations.map((v) => `${v.file} -> ${v.specifier}  (${v.rule})`).join('\n');
}

/**
 * Every module specifier a TypeScript source names: `import … from`, `import type … from`,
 * side-effect `import '…'`, `export … from`, `import x = require('…')`, dynamic `import('…')`
 * and type-position `import('…')`. Parsed, so imports inside comments or strings do not count.
 * A dynamic import of a computed path is returned as `<computed> <its source text>`, so that a
 * caller can refuse what it cannot resolve.
 */
export function importSpecifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const literal = (node: ts.Node | undefined) => {
    if (node !== undefined && ts.isStringLiteralLike(node)) found.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const argument = node.arguments[0];
      if (argument !== undefined && !ts.isStringLiteralLike(argument))
        found.push(`<computed> ${argument.getText(source)}`);
      else literal(argument);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      literal(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The import edges of every `.ts` file under `<root>/src`, with repo-relative file names. */
export function sourceEdges(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(posix.join(root, dir), { withFileTypes: true })) {
      const path = posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(posix.join(root, path), 'utf8');
        for (const specifier of importSpecifiers(path, text)) edges.push({ file: path, specifier });
      }
    }
  };
  walk('src');
  return edges.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
