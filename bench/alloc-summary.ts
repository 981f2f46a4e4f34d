import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Summarizes an allocation profile (bench/alloc-profile.ts): the bytes allocated by each function
// itself and by each function with what it calls, largest first, and per request when given the
// number of requests the provider answered.
//   node bench/alloc-summary.ts [file.heapprofile | dir] [requests] [topN]
// With a directory (default bench/results) it reads the newest .heapprofile in it.

interface Node {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly Node[];
}

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

function newest(dir: string): string {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.heapprofile'))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (files[0] === undefined) throw new Error(`no .heapprofile in ${dir}`);
  return files[0];
}

function label({ callFrame: f }: Node): string {
  const url = f.url.startsWith(`file://${root}/`) ? f.url.slice(`file://${root}/`.length) : f.url;
  return `${f.functionName || '(anonymous)'}  ${url}${url ? `:${f.lineNumber + 1}` : ''}`;
}

const [target = join(root, 'bench/results'), requestsArg, topArg] = process.argv.slice(2);
const file = statSync(target).isDirectory() ? newest(target) : target;
const requests = requestsArg === undefined ? undefined : Number(requestsArg);
const top = Number(topArg ?? 30);
const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: Node }).head;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
function walk(node: Node, above: ReadonlySet<string>): number {
  const name = label(node);
  total += node.selfSize;
  self.set(name, (self.get(name) ?? 0) + node.selfSize);
  const path = new Set(above).add(name);
  let sum = node.selfSize;
  for (const child of node.children) sum += walk(child, path);
  // A recursive function counts once, at its outermost call.
  if (!above.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + sum);
  return sum;
}
walk(head, new Set());

const size = (bytes: number) =>
  requests === undefined
    ? `${(bytes / 1e6).toFixed(1).padStart(8)} MB`
    : `${(bytes / requests).toFixed(0).padStart(7)} B/req`;
const table = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, bytes]) => `${size(bytes)} ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${name}`)
    .join('\n');
console.log(
  `allocation profile ${file}: ${size(total)} sampled\n\nAllocated by the function itself:\n${table(self)}`,
);
console.log(`\nAllocated by the function and what it calls:\n${table(inclusive)}`);
