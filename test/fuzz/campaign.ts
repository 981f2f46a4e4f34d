import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { providerOn } from '../../src/provider.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { dropSchemas, TEST_DATABASE_URL, urlInSchema } from '../support/postgres.ts';
import { freePort } from '../support/provider.ts';
import { type Fixtures, prepare } from './fixtures.ts';
import { type Input, makeInput, targetsFor } from './inputs.ts';
import { type MemorySample, type MemoryVerdict, memoryVerdict, mib } from './memory.ts';
import { type ServedProvider, serve } from './server-process.ts';
import { uncovered } from './targets.ts';
import { judge } from './verdict.ts';
import { Connection, type ExchangeOptions, type Outcome, type RawRequest, serialize } from './wire.ts';

// One fuzz run: a fresh database made ready (fixtures.ts), `ppx serve` on it, then `inputs`
// generated requests over a few kept-alive connections, each answer judged (verdict.ts), while
// the server's RSS is sampled and /healthz is asked every second. At the end: open streams must
// have closed, the server must have logged no internal error and must stop gracefully.

export interface CampaignOptions {
  readonly inputs: number;
  readonly seed: number;
  readonly store: 'sqlite' | 'postgres';
  /** Runs only this input (reproducing a failure). */
  readonly only?: number;
  /** Connections sending at once. */
  readonly concurrency?: number;
  /** Told a line now and then (progress). */
  readonly progress?: (line: string) => void;
  /** Where the requests of failures are written in full (default: a folder under the OS tmpdir). */
  readonly failureDir?: string;
}

export interface Tally {
  inputs: number;
  readonly statuses: Map<string, number>;
  failures: number;
}

export interface Failure {
  readonly index: number;
  readonly target: string;
  readonly generator: string;
  readonly credential: string;
  readonly problems: readonly string[];
  /** The request, escaped, cut at 2 KB (in full in `file`). */
  readonly request: string;
  readonly response: string;
  readonly file?: string;
}

export interface CampaignReport {
  readonly seed: number;
  readonly store: string;
  readonly planned: number;
  tried: number;
  durationMs: number;
  readonly byTarget: Map<string, Tally>;
  readonly byGenerator: Map<string, Tally>;
  readonly byCredential: Map<string, Tally>;
  readonly jwtFlaws: Map<string, number>;
  readonly statuses: Map<string, number>;
  fiveXX: number;
  readonly failures: Failure[];
  failureCount: number;
  memory?: MemoryVerdict;
  /** Problems of the run as a whole: a crash, a silence, memory, streams left open, logged errors. */
  readonly problems: string[];
  readonly notFuzzed: string[];
  readonly serverErrors: string[];
  /** Requests per second over the run. */
  rate: number;
  /** CPU seconds the run took: the server's, and the fuzzer's own (generating, sending, judging). */
  cpu?: { readonly server: number; readonly fuzzer: number };
}

const EXCHANGE: ExchangeOptions = { timeoutMs: 30_000, streamIdleMs: 150, streamMaxMs: 2_000 };
const MAX_KEPT_FAILURES = 50;

export async function runCampaign(options: CampaignOptions): Promise<CampaignReport> {
  const dir = mkdtempSync(join(tmpdir(), 'ppx-fuzz-'));
  const schemas: string[] = [];
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const base = `http://${host}`;
  const db = join(dir, 'ppx.db');
  const schema = options.store === 'postgres' ? `fuzz_${port}_${Date.now().toString(36)}` : undefined;
  if (schema !== undefined) schemas.push(schema);
  const databaseUrl = schema !== undefined ? urlInSchema(schema) : undefined;
  const report: CampaignReport = {
    seed: options.seed,
    store: options.store,
    planned: options.only !== undefined ? 1 : options.inputs,
    tried: 0,
    durationMs: 0,
    byTarget: new Map(),
    byGenerator: new Map(),
    byCredential: new Map(),
    jwtFlaws: new Map(),
    statuses: new Map(),
    fiveXX: 0,
    failures: [],
    failureCount: 0,
    problems: [],
    notFuzzed: [],
    serverErrors: [],
    rate: 0,
  };
  let server: ServedProvider | undefined;
  try {
    const fx = await fixtures(base, db, schema);
    server = await serve({
      stdout: join(dir, 'stdout.log'),
      port,
      base,
      db,
      ...(databaseUrl ? { databaseUrl } : {}),
    });
    await servingFixtures(fx);
    const missing = uncovered(fx.routes);
    if (missing.length > 0) report.problems.push(`routes no target aims at: ${missing.join(', ')}`);
    const targets = targetsFor(fx);
    if (targets.length < fx.routes.length) {
      report.notFuzzed.push(
        'the web app pages (/app and its assets): no bundle is built (npm run build:app)',
      );
    }
    await fuzz(options, fx, targets, server, host, port, report);
    await settle(base, server, report);
  } finally {
    if (server) {
      const code = await server.stop();
      report.serverErrors.push(...server.errors.filter((l) => l.trim() !== ''));
      if (server.exited?.signal === null && code !== 0)
        report.problems.push(`ppx serve stopped with exit code ${code}`);
    }
    if (report.serverErrors.length > 0) {
      report.problems.push(`the server logged ${report.serverErrors.length} error line(s)`);
    }
    rmSync(dir, { recursive: true, force: true });
    await dropSchemas(schemas).catch(() => undefined);
  }
  return report;
}

/** The fixtures, made on the database before the server opens it. */
async function fixtures(base: string, db: string, schema: string | undefined): Promise<Fixtures> {
  const config = loadConfig({ dbPath: db, baseUrl: base, rateLimit: '0', signupEnabled: true }, {});
  if (!config.ok) throw new Error(config.error.description);
  const store =
    schema !== undefined
      ? await openPostgresStore(TEST_DATABASE_URL, { schema, poolSize: 2 })
      : await openSqliteStore(db);
  try {
    const deps = await providerOn(store, config.value, () => new Date());
    return await prepare(deps, base, config.value.bodyLimitBytes);
  } finally {
    await store.close();
  }
}

/** What only the running server can say: its MCP tools and resources, an A2A task. */
async function servingFixtures(fx: Fixtures): Promise<void> {
  const rpc = async (path: string, token: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(fx.base + path, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${path} answered ${r.status}: ${await r.text()}`);
    return (await r.json()) as { result?: Record<string, unknown> };
  };
  const mcp = fx.tokens.get('mcp-reader')!;
  const mcpHeaders = { 'mcp-protocol-version': '2025-11-25' };
  const tools = await rpc('/mcp', mcp, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, mcpHeaders);
  fx.tools = (
    (tools.result?.['tools'] ?? []) as { name: string; inputSchema: Record<string, unknown> }[]
  ).map((t) => ({
    name: t.name,
    inputSchema: t.inputSchema,
  }));
  const resources = await rpc('/mcp', mcp, { jsonrpc: '2.0', id: 2, method: 'resources/list' }, mcpHeaders);
  fx.resourceUris = ((resources.result?.['resources'] as { uri: string }[] | undefined) ?? []).map(
    (r) => r.uri,
  );
  const sent = await rpc(
    '/a2a',
    fx.tokens.get('a2a-reader')!,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: 'fuzz-setup',
          role: 'ROLE_USER',
          parts: [{ data: { method: 'get_effective_profile', params: {} }, mediaType: 'application/json' }],
        },
      },
    },
    { 'a2a-version': '1.0' },
  );
  const task = (sent.result?.['task'] as { id?: string } | undefined)?.id;
  if (task) fx.taskIds.push(task);
}

function tally(map: Map<string, Tally>, key: string, status: string, failed: boolean): void {
  let t = map.get(key);
  if (!t) {
    t = { inputs: 0, statuses: new Map(), failures: 0 };
    map.set(key, t);
  }
  t.inputs++;
  t.statuses.set(status, (t.statuses.get(status) ?? 0) + 1);
  if (failed) t.failures++;
}

function statusOf(outcome: Outcome): string {
  return outcome.kind === 'answered' ? String(outcome.response.status) : `no answer (${outcome.why})`;
}

const escaped = (bytes: Buffer, max = 2000) => JSON.stringify(bytes.subarray(0, max).toString('latin1'));

async function fuzz(
  options: CampaignOptions,
  fx: Fixtures,
  targets: ReturnType<typeof targetsFor>,
  server: ServedProvider,
  host: string,
  port: number,
  report: CampaignReport,
): Promise<void> {
  const first = options.only ?? 0;
  const end = options.only !== undefined ? options.only + 1 : options.inputs;
  let next = first;
  let done = 0;
  let stopped: string | undefined;
  const samples: MemorySample[] = [];
  const heap: (MemorySample & { readonly isolate: string })[] = [];
  const failureDir = options.failureDir ?? join(tmpdir(), `ppx-fuzz-failures-${options.seed}`);
  const started = performance.now();
  const serverCpu = server.cpuSeconds() ?? 0;
  const fuzzerCpu = process.cpuUsage();

  const sampler = setInterval(() => {
    const rss = server.rss();
    if (rss !== undefined) samples.push({ done, bytes: rss });
  }, 200);
  // The live heap after each full collection (--trace-gc), read from the server's stdout file.
  const gcReader = setInterval(() => {
    for (const gc of server.liveHeaps()) heap.push({ done, ...gc });
  }, 500);
  let lastLine = performance.now();
  const progress = setInterval(() => {
    const now = performance.now();
    if (!options.progress || now - lastLine < 5000) return;
    lastLine = now;
    const secs = (now - started) / 1000;
    const rss = samples.at(-1)?.bytes ?? 0;
    options.progress(
      `${done}/${end - first} inputs, ${Math.round(done / secs)}/s, server RSS ${(rss / 1048576).toFixed(0)} MiB, ${report.failureCount} failure(s)`,
    );
  }, 1000);
  // Is it still answering? /healthz on a connection of its own, every second.
  const liveness = (async () => {
    while (stopped === undefined && next < end) {
      await new Promise((r) => setTimeout(r, 1000));
      if (server.exited) {
        stopped = `ppx serve exited (${JSON.stringify(server.exited)})`;
        break;
      }
      const conn = await Connection.open(port, '127.0.0.1').catch((e: Error) => e);
      if (conn instanceof Error) {
        stopped = `no connection to the server any more: ${conn.message}`;
        break;
      }
      const outcome = await conn.exchange({ method: 'GET', target: '/healthz', headers: [] }, host, EXCHANGE);
      conn.destroy();
      if (outcome.kind !== 'answered' || outcome.response.status !== 200) {
        if (stopped === undefined && next < end)
          stopped = `the server stopped answering /healthz (${statusOf(outcome)})`;
        break;
      }
    }
  })();

  const send = async (request: RawRequest, kept: { conn?: Connection }): Promise<Outcome> => {
    const clean = (request.delivery === undefined || request.delivery.kind === 'whole') && !request.oneShot;
    if (!clean) {
      const conn = await Connection.open(port, '127.0.0.1');
      const outcome = await conn.exchange(request, host, EXCHANGE);
      conn.destroy();
      return outcome;
    }
    for (let attempt = 0; ; attempt++) {
      if (!kept.conn?.usable) kept.conn = await Connection.open(port, '127.0.0.1');
      const reused = kept.conn.uses > 0;
      const outcome = await kept.conn.exchange(request, host, EXCHANGE);
      // A kept-alive connection the server closed as the request left: try once more, on a new one.
      if (outcome.kind === 'unanswered' && outcome.why !== 'timeout' && reused && attempt === 0) continue;
      return outcome;
    }
  };

  const record = (input: Input, outcome: Outcome) => {
    const { request } = input;
    const { head, body } = serialize(request, host);
    const problems = judge(request, requestTextOf(head, body), outcome);
    const status = statusOf(outcome);
    const failed = problems.length > 0;
    report.tried++;
    report.statuses.set(status, (report.statuses.get(status) ?? 0) + 1);
    if (outcome.kind === 'answered' && outcome.response.status >= 500) report.fiveXX++;
    tally(report.byTarget, input.target.name, status, failed);
    tally(report.byGenerator, input.generator, status, failed);
    tally(report.byCredential, input.credential, status, failed);
    if (input.note) report.jwtFlaws.set(input.note, (report.jwtFlaws.get(input.note) ?? 0) + 1);
    if (!failed) return;
    report.failureCount++;
    if (report.failures.length >= MAX_KEPT_FAILURES) return;
    mkdirSync(failureDir, { recursive: true });
    const file = join(failureDir, `${input.index}.http`);
    writeFileSync(file, Buffer.concat([head, body]));
    report.failures.push({
      index: input.index,
      target: input.target.name,
      generator: input.generator,
      credential: input.credential,
      problems,
      request: escaped(Buffer.concat([head, body])),
      response:
        outcome.kind === 'answered'
          ? `${outcome.response.status} ${escaped(outcome.response.body, 600)}`
          : `${outcome.why}: ${outcome.detail}`,
      file,
    });
  };

  const worker = async () => {
    const kept: { conn?: Connection } = {};
    while (stopped === undefined) {
      const index = next++;
      if (index >= end) break;
      let input: Input;
      try {
        input = makeInput(options.seed, index, fx, targets);
      } catch (e) {
        // The fuzzer's own bug: said, and the run goes on (and fails).
        report.problems.push(`the fuzzer could not make input ${index}: ${(e as Error).stack ?? e}`);
        done++;
        continue;
      }
      const outcome = await send(input.request, kept).catch(
        (e: Error): Outcome => ({ kind: 'unanswered', why: 'reset', detail: e.message, ms: 0 }),
      );
      record(input, outcome);
      done++;
    }
    kept.conn?.destroy();
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 12, end - first) }, worker));
  } finally {
    clearInterval(sampler);
    clearInterval(progress);
    clearInterval(gcReader);
  }
  report.durationMs = performance.now() - started;
  report.rate = report.tried / (report.durationMs / 1000);
  const used = process.cpuUsage(fuzzerCpu);
  report.cpu = {
    server: (server.cpuSeconds() ?? serverCpu) - serverCpu,
    fuzzer: (used.user + used.system) / 1e6,
  };
  const last = server.rss();
  if (last !== undefined) samples.push({ done, bytes: last });
  await liveness;
  for (const gc of server.liveHeaps()) heap.push({ done, ...gc });
  // A run brings only a few full collections, each where the inputs in flight put it (one taken
  // amid large bodies once read 48 MiB live); a last one, with nothing in flight, says what stayed.
  for (const gc of await server.collectNow()) heap.push({ done, ...gc });
  if (stopped !== undefined) report.problems.push(stopped);
  if (options.only === undefined) {
    const memory = memoryVerdict(samples, mainIsolate(heap), end - first);
    report.memory = memory;
    if (!memory.rss.ok) {
      report.problems.push(
        `the server's RSS kept growing after warm-up: median ${mib(memory.rss.end)} at the end, more than the ${mib(memory.rss.allowed)} allowed`,
      );
    }
    if (memory.heap && !memory.heap.ok) {
      report.problems.push(
        `the server's heap kept growing after warm-up: ${mib(memory.heap.end)} live at the end, more than the ${mib(memory.heap.allowed)} allowed`,
      );
    }
  }
}

/** The main thread's collections: its isolate's heap is the largest (a worker's is a few MiB). */
function mainIsolate(gcs: readonly (MemorySample & { readonly isolate: string })[]): MemorySample[] {
  const peak = new Map<string, number>();
  for (const g of gcs) peak.set(g.isolate, Math.max(peak.get(g.isolate) ?? 0, g.bytes));
  const main = [...peak.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return gcs.filter((g) => g.isolate === main);
}

/**
 * The request as text for the trace check: its bytes, and its percent-encoded parts decoded (an
 * answer that repeats a query value repeats it decoded).
 */
function requestTextOf(head: Buffer, body: Buffer): string {
  const raw = head.toString('latin1') + body.toString('utf8');
  const decoded = Buffer.from(
    raw
      .replace(/\+/g, ' ')
      .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
  return `${raw}\n${decoded}`;
}

/** After the run: every stream the fuzz opened has closed (ppx_open_streams back to 0). */
async function settle(base: string, server: ServedProvider, report: CampaignReport): Promise<void> {
  if (server.exited) return;
  let open = Number.NaN;
  for (let i = 0; i < 50; i++) {
    const text = await (await fetch(`${base}/metrics`)).text();
    open = 0;
    for (const m of text.matchAll(/^ppx_open_streams(?:\{[^}]*\})? (\d+)/gm)) open += Number(m[1]);
    if (open === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  report.problems.push(`${open} stream(s) still open 10 s after the last input`);
}
