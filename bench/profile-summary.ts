import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Summarizes a V8 .cpuprofile (as written by `node --cpu-prof`): top functions by self time, top
// functions by inclusive (self + callees) time, and self time per code area.
//   node bench/profile-summary.ts [file.cpuprofile | dir] [topN]
// With a directory (default bench/results) it reads the newest .cpuprofile in it.

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

function shortUrl(url: string): string {
  if (url === '') return '';
  let u = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (u.startsWith(`${root}/`)) u = u.slice(root.length + 1);
  return u;
}

function label(cf: CallFrame): string {
  const name = cf.functionName || '(anonymous)';
  const url = shortUrl(cf.url);
  return url ? `${name}  ${url}:${cf.lineNumber + 1}` : name;
}

/** The code area a frame belongs to: a src/ directory, an npm package, node internals, V8. */
function area(cf: CallFrame): string {
  const url = shortUrl(cf.url);
  if (url === '') {
    if (cf.functionName.startsWith('(')) return cf.functionName;
    return '(native/builtin)';
  }
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `npm:${nm[1]}`;
  if (url.startsWith('node:')) return url.startsWith('node:internal/') ? 'node:internal' : url;
  const src = /^(src\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (src) return src[1]!;
  return url;
}

export interface Summary {
  file: string;
  totalMs: number;
  busyMs: number;
  self: { fn: string; ms: number }[];
  inclusive: { fn: string; ms: number }[];
  areas: { area: string; ms: number }[];
}

export function summarize(file: string, top = 25): Summary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const areas = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    total += dt;
    const cf = node.callFrame;
    if (cf.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    const l = label(cf);
    self.set(l, (self.get(l) ?? 0) + dt);
    const a = area(cf);
    areas.set(a, (areas.get(a) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      if (f.functionName === '(root)') break;
      const fl = label(f);
      if (seen.has(fl)) continue;
      seen.add(fl);
      incl.set(fl, (incl.get(fl) ?? 0) + dt);
    }
  }
  const sorted = <K extends string>(m: Map<string, number>, key: K) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => ({ [key]: k, ms }) as { [P in K]: string } & { ms: number });
  return {
    file,
    totalMs: total,
    busyMs: total - idle,
    self: sorted(self, 'fn'),
    inclusive: sorted(incl, 'fn'),
    areas: sorted(areas, 'area'),
  };
}

function print(s: Summary): void {
  const pct = (ms: number) => `${((100 * ms) / s.busyMs).toFixed(1).padStart(5)} %`;
  const row = (ms: number, what: string) => `${ms.toFixed(0).padStart(8)} ms ${pct(ms)}  ${what}`;
  console.log(`\nCPU profile ${s.file}`);
  console.log(
    `sampled ${s.totalMs.toFixed(0)} ms, busy (non-idle) ${s.busyMs.toFixed(0)} ms; % are of busy time`,
  );
  console.log('\nTop functions by self time:');
  for (const r of s.self) console.log(row(r.ms, r.fn));
  console.log('\nTop functions by inclusive time:');
  for (const r of s.inclusive) console.log(row(r.ms, r.fn));
  console.log('\nSelf time by area:');
  for (const r of s.areas) console.log(row(r.ms, r.area));
}

function newestProfile(dir: string): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  return files[0]!;
}

/** Prints the summary of the newest profile in `dir`. */
export function summarizeProfiles(dir: string, top = 25): void {
  print(summarize(newestProfile(dir), top));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const target = process.argv[2] ?? join(root, 'bench', 'results');
  const top = Number(process.argv[3] ?? 25);
  const file = statSync(target).isDirectory() ? newestProfile(target) : target;
  print(summarize(file, top));
}
