import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, startChild } from './children.ts';
import { BENCH_PATH, CLAIM_COUNT } from './fixtures.ts';
import {
  type BenchArgs,
  benchArgs,
  machine,
  measure,
  postgresPids,
  runMain,
  settings,
  type Target,
  withDeadline,
  writeResults,
} from './harness.ts';
import { checked } from './http-requests.ts';
import * as mcp from './mcp-requests.ts';
import { BENCH_DATABASE_URL, type BenchSchema, benchSchema } from './postgres-schema.ts';
import { markdown, type Round, roundsRecord, summarize } from './rounds.ts';

// `npm run bench:stores [-- --setups sqlite,postgres,postgres-2 --surfaces http,mcp --rounds 2
// --duration 10 --connections 50 --warmup 2]`
// The effective profile over HTTP (POST /v1/profile/effective) and over MCP (tools/call
// ppx_get_effective_profile) of the 200-claim fixture, on each store setup: SQLite, PostgreSQL
// with one instance, PostgreSQL with two instances on one database (the load's connections spread
// over both; issue 14, item 5), each against its bare baseline in the same run (the HTTP baseline
// doing the same JSON work, bench/baseline-server.ts; the bare MCP SDK server answering the
// provider's own result, bench/mcp-baseline-server.ts), rounds alternating the order. Every
// PostgreSQL setup gets an empty schema of its own on --database-url (PPX_BENCH_DATABASE_URL, the
// local server by default), dropped afterwards. Writes bench/results/stores.json.

const here = import.meta.dirname;
const json = { 'content-type': 'application/json' };

type Surface = 'http' | 'mcp';
interface Setup {
  readonly name: string;
  readonly store: 'sqlite' | 'postgres';
  readonly instances: 1 | 2;
}
const SETUPS: Record<string, Setup> = {
  sqlite: { name: 'sqlite', store: 'sqlite', instances: 1 },
  postgres: { name: 'postgres', store: 'postgres', instances: 1 },
  'postgres-2': { name: 'postgres-2', store: 'postgres', instances: 2 },
};

const waitsDir = mkdtempSync(join(tmpdir(), 'ppx-bench-waits-'));
process.on('exit', () => rmSync(waitsDir, { recursive: true, force: true }));
let waitCount = 0;
/** A fresh file for a child's lock waits (PPX_BENCH_LOCK_WAITS_FILE). */
function waitsPath(name: string): string {
  return join(waitsDir, `${name}-${++waitCount}.json`);
}

/** The provider target of a setup: its first instance, and the second's URL when it has one. */
async function providerTarget(
  surface: Surface,
  setup: Setup,
  children: Child[],
  databaseUrl: string | undefined,
): Promise<Target> {
  const argv = [join(here, 'provider-server.ts'), '--audience', surface];
  if (databaseUrl) argv.push('--database-url', databaseUrl);
  const firstWaits = waitsPath('provider');
  const first = startChild('provider', argv, {
    env: { ...process.env, PPX_BENCH_LOCK_WAITS_FILE: firstWaits },
  });
  children.push(first);
  const info = await first.ready;
  const path = surface === 'http' ? BENCH_PATH : '/mcp';
  const headers =
    surface === 'http' ? { ...json, authorization: `Bearer ${info['token']}` } : mcp.headers(info['token']);
  const onPostgres =
    databaseUrl === undefined ? {} : { databasePids: postgresPids, lockWaitFiles: [firstWaits] };
  const target: Target = {
    name: 'provider',
    url: info['url'] + path,
    headers,
    pid: first.proc.pid,
    ...onPostgres,
  };
  if (setup.instances === 1 || !databaseUrl) return target;
  const secondWaits = waitsPath('instance');
  const second = startChild(
    'instance',
    [join(here, 'instance-server.ts'), '--database-url', databaseUrl, '--base-url', info['baseUrl']!],
    { env: { ...process.env, PPX_BENCH_LOCK_WAITS_FILE: secondWaits } },
  );
  children.push(second);
  const secondInfo = await second.ready;
  return {
    ...target,
    name: 'provider ×2',
    also: [{ url: secondInfo['url'] + path, pid: second.proc.pid }],
    lockWaitFiles: [firstWaits, secondWaits],
  };
}

async function runSetup(
  surface: Surface,
  setup: Setup,
  args: BenchArgs,
  databaseUrl: string | undefined,
): Promise<Round[]> {
  const label = `bench:stores ${surface} ${setup.name}`;
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-stores-'));
  try {
    return await withDeadline(label, args, async (children) => {
      const provider = await providerTarget(surface, setup, children, databaseUrl);
      if (surface === 'http') {
        const baselineChild = startChild('baseline', [join(here, 'baseline-server.ts')]);
        children.push(baselineChild);
        const baseline: Target = {
          name: 'baseline',
          url: (await baselineChild.ready)['url'] + BENCH_PATH,
          headers: json,
          pid: baselineChild.proc.pid,
        };
        const verify = async (t: Target) => {
          // Each instance answers in full.
          for (const url of [t.url, ...(t.also ?? []).map((a) => a.url)])
            await checked({ ...t, url }, CLAIM_COUNT);
          return Buffer.byteLength(await checked(t, CLAIM_COUNT));
        };
        const bodyFor = (context: Record<string, unknown>) => JSON.stringify({ context });
        return measure(label, args, { bodyFor, verify }, [provider, baseline]);
      }
      const payload = join(tmp, 'result.json');
      writeFileSync(payload, JSON.stringify((await mcp.call(provider)).result));
      const bareChild = startChild('bare-sdk', [join(here, 'mcp-baseline-server.ts'), payload]);
      children.push(bareChild);
      const bare: Target = {
        name: 'bare-sdk',
        url: `${(await bareChild.ready)['url']}/mcp`,
        headers: mcp.headers(),
        pid: bareChild.proc.pid,
      };
      const verify = async (t: Target) => {
        for (const url of [t.url, ...(t.also ?? []).map((a) => a.url)]) await mcp.call({ ...t, url });
        return (await mcp.call(t)).bytes;
      };
      return measure(label, args, { bodyFor: mcp.bodyFor, verify }, [provider, bare]);
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = benchArgs({
    setups: { type: 'string', default: 'sqlite,postgres,postgres-2' },
    surfaces: { type: 'string', default: 'http,mcp' },
    'database-url': {
      type: 'string',
      default: BENCH_DATABASE_URL,
    },
  });
  const setups = String(args.extra['setups'])
    .split(',')
    .map((name) => {
      const setup = SETUPS[name];
      if (!setup) throw new Error(`--setups: unknown setup ${name} (${Object.keys(SETUPS).join(', ')})`);
      return setup;
    });
  const surfaces = String(args.extra['surfaces'])
    .split(',')
    .map((s) => {
      if (s !== 'http' && s !== 'mcp') throw new Error(`--surfaces: http or mcp, not ${s}`);
      return s as Surface;
    });
  const databaseUrl = String(args.extra['database-url']);
  const schemas: BenchSchema[] = [];
  const results: { surface: Surface; setup: Setup; rounds: Round[] }[] = [];
  try {
    for (const surface of surfaces) {
      for (const setup of setups) {
        let url: string | undefined;
        if (setup.store === 'postgres') {
          const schema = benchSchema('bench_stores', databaseUrl);
          schemas.push(schema);
          url = schema.url;
        }
        results.push({ surface, setup, rounds: await runSetup(surface, setup, args, url) });
      }
    }
  } finally {
    for (const schema of schemas) await schema.drop();
  }
  const rows = results.map(({ surface, setup, rounds }) => {
    const s = summarize(rounds);
    const [p, b] = s.targets;
    const cpu = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
    return [
      surface,
      setup.store,
      String(setup.instances),
      p!.reqPerSec.median.toFixed(0),
      b!.reqPerSec.median.toFixed(0),
      `${s.ratio.median.toFixed(2)} (${s.ratio.min.toFixed(2)}–${s.ratio.max.toFixed(2)})`,
      p!.p99.median.toFixed(0),
      b!.p99.median.toFixed(0),
      `${cpu(p!.cpuPerRequest.median)} / ${cpu(p!.databaseCpuPerRequest.median)} / ${cpu(b!.cpuPerRequest.median)}`,
      Number.isFinite(p!.lockWaitShare.median) ? `${(p!.lockWaitShare.median * 100).toFixed(2)} %` : 'n/a',
    ];
  });
  console.log(
    markdown(
      [
        'surface',
        'store',
        'instances',
        'provider req/s',
        'baseline req/s',
        'ratio (min–max)',
        'provider p99 ms',
        'baseline p99 ms',
        'CPU µs/req provider / PostgreSQL / baseline',
        'lock wait / request time',
      ],
      rows,
    ),
  );
  // Each store against SQLite in the same run, each first divided by its own baseline's rate in
  // the same rounds (so that drift between setups cancels), and as measured.
  const sqlite = results.find((r) => r.setup.store === 'sqlite');
  if (sqlite !== undefined) {
    const rateOf = (rounds: readonly Round[]) => summarize(rounds).targets[0]!.reqPerSec.median;
    const relative = (rounds: readonly Round[]) => summarize(rounds).ratio.median;
    const lines = results
      .filter((r) => r.setup.store !== 'sqlite' && r.surface === sqlite.surface)
      .map(
        (r) =>
          `${r.surface} ${r.setup.name} / sqlite: ${(rateOf(r.rounds) / rateOf(sqlite.rounds)).toFixed(2)} as measured, ` +
          `${(relative(r.rounds) / relative(sqlite.rounds)).toFixed(2)} each over its baseline`,
      );
    for (const line of lines) console.log(line);
  }
  writeResults('bench:stores', 'stores.json', {
    ...machine(),
    ...settings(args),
    runs: results.map(({ surface, setup, rounds }) => ({ surface, ...setup, ...roundsRecord(rounds) })),
  });
}

runMain('bench:stores', main);
