import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startChild } from './children.ts';
import { cpuMicros, machine, runMain, withDeadline, writeResults } from './harness.ts';
import { BENCH_DATABASE_URL, benchSchema } from './postgres-schema.ts';
import { markdown } from './rounds.ts';

// `npm run bench:notices [-- --trials 60 --listens 8 --instances 1|2]`
// How soon a grantee listening over MCP 2026-07-28 (`subscriptions/listen`, docs/subscriptions.md)
// hears of a change inside its grant, and what listening costs the provider. For each trial the
// person changes a claim the grant reads (POST /v1/profile/propose-updates with the subject's
// token); the time is taken from the write's answer to each listener's
// `notifications/resources/updated`. With `--instances 2` the provider runs as two instances on
// one PostgreSQL database: the grantee listens on the first, the person writes through the
// second, and the notice crosses by LISTEN/NOTIFY (docs/subscriptions.md). By design a notice goes out on the tick after the one that
// found the change (a 250 ms grid), so the floor is up to 250 ms and the ceiling 500 ms plus the
// reading: the figures say where between they fall.
// Baseline in the same run: the same writes with nobody listening; the provider's CPU per write
// with and without `--listens` open streams is the cost of telling them. Writes
// bench/results/notices.json.

const here = import.meta.dirname;
const TICK_MS = 250;

interface Listener {
  readonly notices: number[];
  close(): void;
}

async function listen(url: string, token: string, uri: string, id: number): Promise<Listener> {
  const controller = new AbortController();
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: [uri] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        },
      },
    }),
    signal: controller.signal,
  });
  if (res.status !== 200 || res.body === null) throw new Error(`listen: ${res.status} ${await res.text()}`);
  const notices: number[] = [];
  let acked: () => void = () => undefined;
  const ack = new Promise<void>((resolve) => {
    acked = resolve;
  });
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const frame = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (data === undefined) continue;
          const method = (JSON.parse(data.slice(6)) as { method?: string }).method;
          if (method === 'notifications/subscriptions/acknowledged') acked();
          if (method === 'notifications/resources/updated') notices.push(performance.now());
        }
      }
    } catch {
      // aborted
    }
  })();
  await ack;
  return { notices, close: () => controller.abort() };
}

async function write(url: string, subjectToken: string, value: number): Promise<void> {
  const res = await fetch(`${url}/v1/profile/propose-updates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${subjectToken}` },
    body: JSON.stringify({
      claims: [
        {
          type: 'preference',
          namespace: 'fragrance',
          key: 'freshness_preference',
          value,
          confidence: 0.6,
          source: { kind: 'user_stated' },
        },
      ],
    }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`write: ${res.status} ${text.slice(0, 300)}`);
}

async function summaryUri(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'resources/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'resources/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        },
      },
    }),
  });
  const body = (await res.json()) as { result?: { resources: { uri: string }[] } };
  const uri = body.result?.resources[0]?.uri;
  if (uri === undefined) throw new Error(`resources/list: ${JSON.stringify(body)}`);
  return uri;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: readonly number[], p: number) =>
  xs.length === 0
    ? Number.NaN
    : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      trials: { type: 'string', default: '60' },
      listens: { type: 'string', default: '8' },
      instances: { type: 'string', default: '1' },
      'database-url': { type: 'string', default: BENCH_DATABASE_URL },
    },
  });
  const trials = Number(values.trials);
  const listens = Number(values.listens);
  if (!Number.isInteger(trials) || trials < 1) throw new Error('--trials must be a positive integer');
  // 8: the streams one grant may hold open on an instance (docs/subscriptions.md).
  if (!Number.isInteger(listens) || listens < 1 || listens > 8) throw new Error('--listens must be 1 to 8');
  const instances = Number(values.instances);
  if (instances !== 1 && instances !== 2) throw new Error('--instances must be 1 or 2');
  const schema = instances === 2 ? benchSchema('bench_notices', values['database-url']) : undefined;
  const args = {
    duration: trials,
    connections: 1,
    warmup: 0,
    rounds: 1,
    cold: false,
    profiling: false,
    extra: {},
  };
  const rows: string[][] = [];
  const results: Record<string, unknown> = {};
  try {
    await withDeadline('bench:notices', args, async (children) => {
      const child = startChild('provider', [
        join(here, 'provider-server.ts'),
        '--audience',
        'mcp',
        '--profile',
        'demo',
        ...(schema ? ['--database-url', schema.url] : []),
      ]);
      children.push(child);
      const info = await child.ready;
      const url = info['url']!;
      // Where the person writes: the same instance, or the second one.
      let writeUrl = url;
      if (schema) {
        const second = startChild('instance B', [
          join(here, 'instance-server.ts'),
          '--database-url',
          schema.url,
          '--base-url',
          info['baseUrl']!,
        ]);
        children.push(second);
        writeUrl = (await second.ready)['url']!;
      }
      const token = info['token']!;
      const subjectToken = info['subjectToken']!;
      const pid = child.proc.pid;
      const uri = await summaryUri(url, token);
      let value = 0;

      // Baseline: the same writes, nobody listening.
      const cpu0 = cpuMicros(pid);
      for (let i = 0; i < trials; i++) {
        value = (value + 0.01) % 1;
        await write(writeUrl, subjectToken, value);
        await pause(2 * TICK_MS);
      }
      const quietCpu = ((cpuMicros(pid) ?? 0) - (cpu0 ?? 0)) / trials;

      const listeners = await Promise.all(
        Array.from({ length: listens }, (_, i) => listen(url, token, uri, 100 + i)),
      );
      const latencies: number[] = [];
      let missed = 0;
      const cpu1 = cpuMicros(pid);
      for (let i = 0; i < trials; i++) {
        const seen = listeners.map((l) => l.notices.length);
        value = (value + 0.01) % 1;
        await write(writeUrl, subjectToken, value);
        const answered = performance.now();
        for (let w = 0; w < 40 && listeners.some((l, j) => l.notices.length === seen[j]); w++)
          await pause(25);
        listeners.forEach((l, j) => {
          const at = l.notices[seen[j]!];
          if (at === undefined) missed += 1;
          else latencies.push(at - answered);
        });
        // Off the grid's phase, so the trials sample where in a tick a write lands.
        await pause(2 * TICK_MS + Math.floor(Math.random() * TICK_MS));
      }
      const listeningCpu = ((cpuMicros(pid) ?? 0) - (cpu1 ?? 0)) / trials;
      for (const l of listeners) l.close();
      rows.push([
        String(instances),
        String(trials),
        String(listens),
        percentile(latencies, 0.5).toFixed(0),
        percentile(latencies, 0.99).toFixed(0),
        Math.max(...latencies).toFixed(0),
        String(missed),
        (quietCpu / 1000).toFixed(2),
        (listeningCpu / 1000).toFixed(2),
      ]);
      Object.assign(results, {
        instances,
        trials,
        listens,
        latencies,
        missed,
        quietCpuMicros: quietCpu,
        listeningCpuMicros: listeningCpu,
      });
    });
  } finally {
    await schema?.drop();
  }
  console.log(
    markdown(
      [
        'instances',
        'trials',
        'listens',
        'notice after the write, p50 ms',
        'p99 ms',
        'max ms',
        'missed',
        'CPU per write of the instance listened on, nobody listening, ms',
        `with ${listens} listening, ms`,
      ],
      rows,
    ),
  );
  console.log(
    `by design: between ${TICK_MS} and ${2 * TICK_MS} ms plus the reading; target p99 < 1000 ms, none missed`,
  );
  writeResults('bench:notices', 'notices.json', { ...machine(), ...results });
}

runMain('bench:notices', main);
