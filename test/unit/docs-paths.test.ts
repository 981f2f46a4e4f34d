import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

// Docs true to the code: every file a doc names in backticks (`src/…`, `test/…`, or a path under
// src/ such as `operations/reads/freshness.ts`) exists. Output files a command writes
// (bench/results/) are not in the tree until it runs, and a plan (docs/*-plan.md) names files still
// to be written.

const ROOT = new URL('../../', import.meta.url).pathname;
const TOP = ['src/', 'test/', 'bench/', 'scripts/', 'web/', 'docs/', 'bin/', '.ci/'];
const UNDER_SRC = [
  'model/',
  'policy/',
  'resolve/',
  'store/',
  'auth/',
  'operations/',
  'surfaces/',
  'cli/',
  'cache/',
];
const WRITTEN_BY_COMMANDS = ['bench/results/'];
const NAMED_FILE = /`([A-Za-z0-9_./-]+\.(?:ts|md|js|json|sh|cjs|yml))(?:#[A-Za-z0-9_]+)?`/g;

function markdownFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name));
}

it('every file a doc names exists', () => {
  const docs = [...markdownFiles('docs'), ...markdownFiles('src'), join(ROOT, 'README.md')].filter(
    (doc) => !doc.endsWith('-plan.md'),
  );
  const missing: string[] = [];
  for (const doc of docs) {
    for (const [, named] of readFileSync(doc, 'utf8').matchAll(NAMED_FILE)) {
      const path = named!;
      if (WRITTEN_BY_COMMANDS.some((p) => path.startsWith(p))) continue;
      const inTree = TOP.some((p) => path.startsWith(p))
        ? path
        : UNDER_SRC.some((p) => path.startsWith(p))
          ? `src/${path}`
          : undefined;
      if (inTree !== undefined && !existsSync(join(ROOT, inTree)))
        missing.push(`${doc.slice(ROOT.length)}: ${path}`);
    }
  }
  assert.deepEqual(missing, [], `docs name files that do not exist:\n${missing.join('\n')}`);
});

it("docs/architecture.md's layout names every folder of src/ and of its layers", () => {
  const layout = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const folders = (dir: string) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'migrations')
      .map((e) => e.name);
  const unnamed = [
    ...folders('src'),
    ...['operations', 'surfaces', 'store'].flatMap((layer) => folders(`src/${layer}`)),
  ].filter((name) => !layout.includes(`${name}/`));
  assert.deepEqual(
    unnamed,
    [],
    `folders the layout of docs/architecture.md does not name: ${unnamed.join(', ')}`,
  );
});
