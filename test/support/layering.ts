import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import ts from 'typescript';

// The dependency directions of docs/architecture.md are dependency-cruiser's rules
// (.dependency-cruiser.cjs, run by `npm run lint`). This runs the same rules on a made-up tree,
// so that a test can give them one bad import per rule (they must be able to fail) and the
// imports near it (they must not refuse those).

/** One import: the importing file (repo-relative) and the specifier as written. */
export interface ImportEdge {
  readonly file: string;
  readonly specifier: string;
  /** `import type * as T from …` rather than a run-time import. */
  readonly typeOnly?: boolean;
}

export interface RuleViolation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

const ROOT = new URL('../..', import.meta.url).pathname;
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

/**
 * The violations dependency-cruiser finds, under the repository's rules, in a tree made of
 * `edges` alone: each file holds its imports; each local module they name exists, empty.
 */
export function violationsOf(edges: readonly ImportEdge[]): RuleViolation[] {
  const files = new Map<string, string[]>();
  const add = (file: string, line?: string) => {
    const lines = files.get(file) ?? [];
    if (line !== undefined) lines.push(line);
    files.set(file, lines);
  };
  for (const e of edges) {
    add(e.file, e.typeOnly ? `import type * as T from '${e.specifier}';` : `import '${e.specifier}';`);
    if (e.specifier.startsWith('.')) add(posix.normalize(posix.join(posix.dirname(e.file), e.specifier)));
  }
  return violationsIn([...files].map(([file, lines]) => ({ file, text: lines.join('\n') })));
}

/** The violations dependency-cruiser finds, under the repository's rules, in a tree of these files. */
export function violationsIn(files: readonly { file: string; text: string }[]): RuleViolation[] {
  const dir = mkdtempSync(join(tmpdir(), 'ppx-layering-'));
  try {
    for (const { file, text } of files) {
      mkdirSync(join(dir, posix.dirname(file)), { recursive: true });
      writeFileSync(join(dir, file), `${text}\nexport {};\n`);
    }
    for (const f of ['.dependency-cruiser.cjs', 'package.json', 'tsconfig.json'])
      writeFileSync(join(dir, f), readFileSync(join(ROOT, f)));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const roots = [...new Set(files.map(({ file }) => file.split('/')[0]!))];
    const out = execFileSync(
      process.execPath,
      [DEPCRUISE, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...roots],
      { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 },
    );
    return parseViolations(out);
  } catch (e) {
    // A violation makes depcruise exit non-zero; its JSON report is on stdout all the same.
    const out = (e as { stdout?: unknown }).stdout;
    if (typeof out === 'string' && out.startsWith('{')) return parseViolations(out);
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseViolations(json: string): RuleViolation[] {
  const report = JSON.parse(json) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return report.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

/**
 * Every module specifier a TypeScript source names in a dynamic `import(…)` that is not a
 * literal, as `<computed> <its source text>`: dependency-cruiser cannot follow those.
 */
export function computedImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const argument = node.arguments[0];
      if (argument !== undefined && !ts.isStringLiteralLike(argument))
        found.push(`<computed> ${argument.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The computed dynamic imports of every `.ts` file under `<root>/<dir>`, as `file: text`. */
export function computedImportsUnder(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(posix.join(root, d), { withFileTypes: true })) {
      const path = posix.join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts'))
        for (const c of computedImports(path, readFileSync(posix.join(root, path), 'utf8')))
          found.push(`${path}: ${c}`);
    }
  };
  walk(dir);
  return found;
}
