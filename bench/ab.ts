import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { a2aCall } from './a2a-requests.ts';
import { startChild } from './children.ts';
import { BENCH_CONTEXT, BENCH_PATH } from './fixtures.ts';
import { benchArgs, measure, runMain, type Target, withDeadline } from './harness.ts';
import { checked } from './http-requests.ts';
import { call } from './mcp-requests.ts';
import { roundsTable } from './rounds.ts';
import { SURFACE_NAMES, type SurfaceName, surfaceTarget } from './surface-targets.ts';

// `node bench/ab.ts --a <checkout> --b <checkout> [--connections 1 --rounds 4 --duration 4]`:
// the small read (demo profile) of two builds of the provider in ONE run, as two targets of one
// `measure` beside the bare baseline, alternating rounds. On a shared machine, runs of two builds
// one after the other differ by more than most changes do; within one run both see the same load.
// A checkout is a directory holding this repository at some commit (`git worktree add /tmp/x
// <commit>` with node_modules linked in). Prints the table; the ratio is A over B.
// `--a-node-flags=<flags>` / `--b-node-flags=<flags>` (with `=`: the value starts with a dash),
// space-separated: V8 or Node flags for that build's process only (say, one checkout twice, with
// and without a heap setting).
// `--surface a2a|mcp-2025|mcp-2026`: the two builds answer the same read on that surface, as
// bench:surfaces sends it (A2A 1.0 `SendMessage`, MCP `tools/call` in either generation) instead
// of the HTTP read; the baseline stays the bare server with A's HTTP answer, so that its column
// still says how fast the machine was.

const here = import.meta.dirname;
const json = { 'content-type': 'application/json' };
const bodyFor = (context: Record<string, unknown>) => JSON.stringify({ context });

runMain('ab', async () => {
  const args = benchArgs({
    a: { type: 'string' },
    b: { type: 'string' },
    'a-node-flags': { type: 'string', default: '' },
    'b-node-flags': { type: 'string', default: '' },
    surface: { type: 'string', default: 'http' },
  });
  const surface = String(args.extra['surface']) as SurfaceName;
  if (!SURFACE_NAMES.includes(surface))
    throw new Error(`--surface must be one of ${SURFACE_NAMES.join(', ')}`);
  const a = args.extra['a'];
  const b = args.extra['b'];
  if (typeof a !== 'string' || typeof b !== 'string')
    throw new Error('usage: ab.ts --a <checkout> --b <checkout>');
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-ab-'));
  const rounds = await withDeadline('ab', args, async (children) => {
    const targets: Target[] = [];
    let answer = '';
    for (const [name, root] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const flags = String(args.extra[`${name.toLowerCase()}-node-flags`] ?? '');
      const child = startChild(
        name,
        [join(resolve(root), 'bench', 'provider-server.ts'), '--profile', 'demo', '--audience', 'all'],
        { execArgv: flags.split(/\s+/).filter((f) => f !== '') },
      );
      children.push(child);
      const info = await child.ready;
      const http: Target = {
        name: `${name} ${root}`,
        pid: child.proc.pid,
        url: info['url'] + BENCH_PATH,
        headers: { ...json, authorization: `Bearer ${info['token']}` },
      };
      if (name === 'A') answer = await checked(http, undefined);
      targets.push(
        surface === 'http'
          ? http
          : surfaceTarget(surface, info, child.proc.pid, `${name} ${root} (${surface})`),
      );
    }
    const file = join(tmp, 'answer.json');
    writeFileSync(file, answer);
    const baseline = startChild('baseline', [join(here, 'static-baseline-server.ts'), file]);
    children.push(baseline);
    const url = (await baseline.ready)['url'] + BENCH_PATH;
    targets.push({ name: 'baseline', url, headers: json, pid: baseline.proc.pid });
    const verify = async (t: Target) => {
      if (surface === 'http' || t.bodyFor === undefined)
        return Buffer.byteLength(await checked(t, undefined));
      const body = t.bodyFor(BENCH_CONTEXT);
      return surface === 'a2a' ? (await a2aCall(t, body, null)).bytes : (await call(t, body, null)).bytes;
    };
    return measure('ab', args, { bodyFor, verify }, targets);
  }).finally(() => rmSync(tmp, { recursive: true, force: true }));
  console.log(roundsTable(rounds, false));
});
