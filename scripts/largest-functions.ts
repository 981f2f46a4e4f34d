import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// The longest functions of a tree, by source lines from the declaration to its closing brace
// (a closure counts inside its enclosing function too): a long closure is a list of steps that
// wants names (STYLE.md, "An endpoint is a short pipeline of named steps").
// Usage: node scripts/largest-functions.ts [dir=src] [count=10] [name…]  (names: only those)

const [dir = 'src', count = '10', ...only] = process.argv.slice(2);

interface FunctionSize {
  readonly file: string;
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

function tsFiles(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A function's own name, or the name it is bound to (`const f = () => …`, `{ f: () => … }`). */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name !== undefined)
    return parent.name.getText(source);
  return '(anonymous)';
}

function sizesIn(file: string): FunctionSize[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({
        file: relative('.', file),
        name: nameOf(fn, source),
        line: first + 1,
        lines: last - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const all = tsFiles(dir)
  .flatMap(sizesIn)
  .filter((f) => only.length === 0 || only.includes(f.name))
  .sort((a, b) => b.lines - a.lines)
  .slice(0, Number(count));
for (const f of all) console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.file}:${f.line}`);
