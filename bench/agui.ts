import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type BaseEvent, EventType, HttpAgent } from '@ag-ui/client';
import autocannon from 'autocannon';
import type { Claim } from '../src/model/claim.ts';
import type { InboxState } from '../src/operations/inbox/inbox-state.ts';
import { startChild } from './children.ts';
import { BENCH_BODY, BENCH_PATH } from './fixtures.ts';
import {
  type BenchArgs,
  benchArgs,
  cpuMicros,
  machine,
  runMain,
  settings,
  withDeadline,
  writeResults,
} from './harness.ts';
import { markdown, type Spread, spread } from './rounds.ts';

// `npm run bench:agui`: the speed of the AG-UI review stream (issue 12, "Speed"), against one
// provider child (agui-server.ts). Two parts, reported only (nothing is asserted on time):
//
// 1. Delta latency. One following review run, consumed by @ag-ui/client's HttpAgent (what the
//    person's page uses: it validates every event and applies every STATE_DELTA itself), while
//    the bench changes one claim's value `--changes` times, one after another, through the HTTP
//    API (POST /v1/profile/propose-updates under a grant whose writeback policy applies it). For
//    each change: the time from the write's HTTP answer (its commit) to the moment the client's
//    state shows the new value (the STATE_DELTA that carries it, applied). At the end, the state
//    the client patched is compared with a fresh one-shot snapshot.
// 2. Cost of open streams. Grant-token reads of the profile (POST /v1/profile/effective,
//    autocannon) with no review stream open, and with `--streams` following runs of the same
//    subject open for the whole load (a lean SSE reader on node:http: it counts events, it does
//    not parse them), the two modes alternating round by round. Meanwhile a change every
//    `--change-every` ms (in both modes by default, so the ratio is the streams' cost, not the
//    writes'), so that every open stream carries a STATE_DELTA per change.

const here = import.meta.dirname;
const LABEL = 'bench:agui';

interface Ready {
  readonly url: string;
  readonly readToken: string;
  readonly writeToken: string;
  readonly subjectToken: string;
  readonly namespace: string;
  readonly key: string;
  readonly claimId: string;
  /** JSON text of every person's tokens, the reader first (one entry unless --subjects). */
  readonly subjects: string;
}

interface Person {
  readonly subjectToken: string;
  readonly writeToken: string;
}

interface Options {
  readonly changes: number;
  readonly streams: number;
  readonly changeEveryMs: number;
  readonly changesDuring: 'both' | 'streams';
  readonly profile: 'demo' | 'large';
  /** Whose the open streams are: 1 (all of the reader's subject) or one person per stream. */
  readonly subjects: number;
}

function options(args: BenchArgs): Options {
  const e = args.extra;
  const changes = Number(e['changes']);
  const streams = Number(e['streams']);
  const changeEveryMs = Number(e['change-every']);
  if (!Number.isInteger(changes) || changes <= 0) throw new Error('--changes must be a positive integer');
  if (!Number.isInteger(streams) || streams <= 0) throw new Error('--streams must be a positive integer');
  if (!Number.isFinite(changeEveryMs) || changeEveryMs <= 0)
    throw new Error('--change-every must be a positive number of milliseconds');
  const during = e['changes-during'];
  if (during !== 'both' && during !== 'streams')
    throw new Error(`--changes-during must be both or streams, not ${String(during)}`);
  const profile = e['profile'];
  if (profile !== 'demo' && profile !== 'large')
    throw new Error(`--profile must be demo or large, not ${String(profile)}`);
  const subjects = Number(e['subjects']);
  if (!Number.isInteger(subjects) || subjects < 1 || subjects > streams)
    throw new Error('--subjects must be an integer from 1 to --streams');
  if (subjects > 1 && profile !== 'demo') throw new Error('--subjects > 1 needs --profile demo');
  if (args.cold) throw new Error('--cold does not apply to bench:agui');
  return { changes, streams, changeEveryMs, changesDuring: during, profile, subjects };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The n-th value the bench writes: 5 decimals ending in 5, so never a fixture's (3 decimals). */
let written = 0;
const nextValue = () => ((written++ % 9999) + 1) / 10_000 + 0.000_05;

/** One change: the target claim gets `value` (an applied proposal). Throws unless applied. */
async function change(r: Ready, value: number, writeToken = r.writeToken): Promise<void> {
  const res = await fetch(`${r.url}/v1/profile/propose-updates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writeToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      claims: [
        {
          type: 'preference',
          namespace: r.namespace,
          key: r.key,
          value,
          confidence: 0.6,
          source: { kind: 'observed', origin: 'bench_agui' },
        },
      ],
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`propose-updates: ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { writeback?: string; proposals?: { status?: string }[] };
  if (body.proposals?.[0]?.status !== 'applied')
    throw new Error(`propose-updates: the change was not applied: ${text.slice(0, 300)}`);
}

const valueIn = (state: InboxState | undefined, claimId: string): unknown =>
  state?.claims?.find((c: Claim) => c.claim_id === claimId)?.value;

const runInput = (n: number, forwardedProps: Record<string, unknown> = {}) => ({
  threadId: `bench-agui-${n}`,
  runId: `bench-agui-run-${n}-${Date.now()}`,
  messages: [],
  tools: [],
  context: [],
  state: {},
  forwardedProps,
});

/** The p-th percentile (nearest rank) of sorted values. */
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

interface Distribution {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

function distribution(xs: readonly number[]): Distribution {
  const s = [...xs].sort((a, b) => a - b);
  return {
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    max: s.at(-1) ?? Number.NaN,
    mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length),
  };
}

interface LatencyResult {
  readonly changes: number;
  /** Write's HTTP answer → the client's state shows the value (0 when the delta came first). */
  readonly commitToDelta: Distribution;
  /** Write sent → its HTTP answer. */
  readonly write: Distribution;
  /** Write sent → the client's state shows the value. */
  readonly sendToDelta: Distribution;
  /** Deltas that reached the client before the write's answer did. */
  readonly beforeAnswer: number;
  readonly converged: boolean;
  /** How many deltas took at most each bound (ms), commit → applied: a coarse histogram. */
  readonly histogram: Readonly<Record<string, number>>;
}

const BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

function histogram(xs: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of BOUNDS_MS) out[`<=${b}ms`] = xs.filter((x) => x <= b).length;
  out['>1000ms'] = xs.filter((x) => x > 1000).length;
  return out;
}

/** One snapshot of the review by a fresh one-shot HttpAgent run. */
async function oneShot(r: Ready): Promise<InboxState> {
  const agent = new HttpAgent({
    url: `${r.url}/v1/agui/review`,
    headers: { Authorization: `Bearer ${r.subjectToken}` },
  });
  await agent.runAgent({ forwardedProps: { follow: false } });
  return agent.state as InboxState;
}

async function deltaLatency(r: Ready, o: Options): Promise<LatencyResult> {
  const agent = new HttpAgent({
    url: `${r.url}/v1/agui/review`,
    headers: { Authorization: `Bearer ${r.subjectToken}` },
  });
  let pending: { value: number; resolve: (at: number) => void } | undefined;
  let snapshots = 0;
  let failure: Error | undefined;
  const done = agent
    .runAgent(
      {},
      {
        onStateSnapshotEvent: () => {
          snapshots++;
        },
        onStateChanged: ({ state }) => {
          if (pending !== undefined && valueIn(state as InboxState, r.claimId) === pending.value) {
            const p = pending;
            pending = undefined;
            p.resolve(performance.now());
          }
        },
        onRunFailed: ({ error }) => {
          failure = error;
        },
        onEvent: ({ event }: { event: BaseEvent }) => {
          if (event.type === EventType.RUN_ERROR || event.type === EventType.RUN_FINISHED)
            failure ??= new Error(`the following run ended: ${event.type}`);
        },
      },
    )
    .catch((e: unknown) => {
      if (!(e instanceof Error && e.name === 'AbortError')) failure ??= e as Error;
    });
  try {
    const until = Date.now() + 10_000;
    while (snapshots === 0 && failure === undefined) {
      if (Date.now() > until) throw new Error('the following run sent no snapshot within 10 s');
      await sleep(5);
    }
    const commitToDelta: number[] = [];
    const writes: number[] = [];
    const sendToDelta: number[] = [];
    let beforeAnswer = 0;
    for (let i = 0; i < o.changes; i++) {
      if (failure) throw failure;
      if (i > 0 && i % 200 === 0) console.error(`${LABEL}: delta latency: ${i}/${o.changes} changes`);
      const value = nextValue();
      const arrived = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`change ${i + 1}: no delta within 10 s`)), 10_000);
        pending = {
          value,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        };
      });
      const sent = performance.now();
      await change(r, value);
      const answered = performance.now();
      const at = await arrived;
      if (at < answered) beforeAnswer++;
      commitToDelta.push(Math.max(0, at - answered));
      writes.push(answered - sent);
      sendToDelta.push(at - sent);
    }
    if (snapshots !== 1) throw new Error(`the following run sent ${snapshots} snapshots, expected 1`);
    // The state the client patched, 1,000 deltas later, against a fresh snapshot at the same seq.
    let converged = false;
    for (let attempt = 0; attempt < 5 && !converged; attempt++) {
      const fresh = await oneShot(r);
      const until = Date.now() + 5000;
      while (((agent.state as InboxState).seq ?? -1) < fresh.seq && Date.now() < until) await sleep(5);
      converged = isDeepStrictEqual(agent.state, fresh);
    }
    if (failure) throw failure;
    return {
      changes: o.changes,
      commitToDelta: distribution(commitToDelta),
      write: distribution(writes),
      sendToDelta: distribution(sendToDelta),
      beforeAnswer,
      converged,
      histogram: histogram(commitToDelta),
    };
  } finally {
    agent.abortRun();
    await done;
  }
}

/** One following review run read by a lean SSE reader: events counted by type, never parsed. */
interface Stream {
  deltas: number;
  ended: boolean;
  closed: boolean;
  readonly snapshot: Promise<void>;
  close(): void;
}

function openStream(r: Ready, token: string, n: number): Stream {
  let gotSnapshot: () => void = () => undefined;
  let failed: (e: Error) => void = () => undefined;
  const snapshot = new Promise<void>((resolve, reject) => {
    gotSnapshot = resolve;
    failed = reject;
  });
  snapshot.catch(() => undefined);
  const body = JSON.stringify(runInput(n));
  const req = httpRequest(`${r.url}/v1/agui/review`, {
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      accept: 'text/event-stream',
    },
  });
  const s: Stream = {
    deltas: 0,
    ended: false,
    closed: false,
    snapshot,
    close: () => req.destroy(),
  };
  req.on('error', (e) => {
    s.closed = true;
    failed(e);
  });
  req.on('response', (res) => {
    if (res.statusCode !== 200) {
      failed(new Error(`stream ${n}: HTTP ${res.statusCode}`));
      res.resume();
      return;
    }
    res.setEncoding('utf8');
    let buf = '';
    res.on('data', (chunk: string) => {
      buf += chunk;
      for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        if (block.startsWith('data: {"type":"STATE_DELTA"')) s.deltas++;
        else if (block.startsWith('data: {"type":"STATE_SNAPSHOT"')) gotSnapshot();
        else if (
          block.startsWith('data: {"type":"RUN_FINISHED"') ||
          block.startsWith('data: {"type":"RUN_ERROR"')
        )
          s.ended = true;
      }
    });
    res.on('close', () => {
      s.closed = true;
      failed(new Error(`stream ${n} closed before its snapshot`));
    });
  });
  req.end(body);
  return s;
}

/** Opens `count` following runs, 20 at a time, and waits until each has its snapshot. */
async function openStreams(r: Ready, people: readonly Person[], count: number): Promise<Stream[]> {
  const streams: Stream[] = [];
  for (let first = 0; first < count; first += 20) {
    const batch = Array.from({ length: Math.min(20, count - first) }, (_, i) =>
      openStream(r, people[(first + i) % people.length]!.subjectToken, first + i),
    );
    streams.push(...batch);
    await Promise.all(batch.map((s) => s.snapshot));
  }
  return streams;
}

/**
 * Changes every `everyMs`, each person's claim in turn, until stopped; stop() resolves to the
 * number made (a failure rejects).
 */
function changeLoop(r: Ready, people: readonly Person[], everyMs: number) {
  let running = true;
  let made = 0;
  const loop = (async () => {
    let next = performance.now();
    while (running) {
      await change(r, nextValue(), people[made % people.length]!.writeToken);
      made++;
      next += everyMs;
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      else next = performance.now();
    }
  })();
  loop.catch(() => undefined);
  return {
    made: () => made,
    async stop(): Promise<number> {
      running = false;
      await loop;
      return made;
    },
  };
}

type Mode = 'none' | 'streams';

interface Sample {
  readonly mode: Mode;
  readonly reqPerSec: number;
  readonly p99: number;
  /** Provider CPU during the load, as a share of one core (NaN off Linux). */
  readonly cpuShare: number;
  readonly changesPerSec: number;
  /** Per open stream, the deltas received during the load (min, max); undefined with none open. */
  readonly deltasPerStream?: { readonly min: number; readonly max: number };
  /** Changes answered during the load. */
  readonly changes: number;
}

async function reads(r: Ready, args: BenchArgs, seconds: number) {
  const res = await autocannon({
    url: r.url + BENCH_PATH,
    method: 'POST',
    headers: { authorization: `Bearer ${r.readToken}`, 'content-type': 'application/json' },
    body: BENCH_BODY,
    connections: args.connections,
    duration: seconds,
    timeout: 10,
  });
  if (res.non2xx > 0 || res.errors > 0 || res.timeouts > 0 || res['2xx'] === 0)
    throw new Error(
      `reads: ${res['2xx']} 2xx, ${res.non2xx} non-2xx, ${res.errors} errors, ${res.timeouts} timeouts`,
    );
  return res;
}

async function measureMode(
  r: Ready,
  pid: number | undefined,
  args: BenchArgs,
  o: Options,
  mode: Mode,
  round: number,
): Promise<Sample> {
  const people = (JSON.parse(r.subjects) as Person[]).slice(0, o.subjects);
  const streams = mode === 'streams' ? await openStreams(r, people, o.streams) : [];
  const changing = mode === 'streams' || o.changesDuring === 'both';
  const loop = changing ? changeLoop(r, people, o.changeEveryMs) : undefined;
  try {
    if (args.warmup > 0) {
      console.error(`${LABEL}: round ${round}/${args.rounds}: warming up, ${describe(mode, o)}`);
      await reads(r, args, args.warmup);
    }
    console.error(
      `${LABEL}: round ${round}/${args.rounds}: reads, ${describe(mode, o)} (${args.duration} s, ${args.connections} connections)`,
    );
    const changesBefore = loop?.made() ?? 0;
    const deltasBefore = streams.map((s) => s.deltas);
    const cpuBefore = cpuMicros(pid);
    const t = performance.now();
    const res = await reads(r, args, args.duration);
    const seconds = (performance.now() - t) / 1000;
    const cpuAfter = cpuMicros(pid);
    const changes = (loop?.made() ?? 0) - changesBefore;
    const lost = streams.filter((s) => s.closed || s.ended).length;
    if (lost > 0) throw new Error(`${lost} of ${streams.length} review streams did not stay open`);
    const got = streams.map((s, i) => s.deltas - deltasBefore[i]!);
    // One subject: every change reaches every stream. One person each: a change reaches one.
    if (o.subjects === 1 && changes > 0 && got.some((n) => n === 0))
      throw new Error('an open stream carried no delta');
    if (streams.length > 0 && o.subjects > 1 && changes > 0 && got.reduce((a, b) => a + b, 0) === 0)
      throw new Error(
        `no open stream carried a delta (${changes} changes; ${JSON.stringify(got.slice(0, 10))})`,
      );
    return {
      mode,
      reqPerSec: res.requests.mean,
      p99: res.latency.p99,
      cpuShare:
        cpuBefore !== undefined && cpuAfter !== undefined
          ? (cpuAfter - cpuBefore) / 1e6 / seconds
          : Number.NaN,
      changesPerSec: changes / seconds,
      ...(streams.length > 0 ? { deltasPerStream: { min: Math.min(...got), max: Math.max(...got) } } : {}),
      changes,
    };
  } finally {
    await loop?.stop();
    for (const s of streams) s.close();
    if (streams.length > 0) await sleep(500); // the provider closes their subscriptions
  }
}

function describe(mode: Mode, o: Options): string {
  const changes =
    mode === 'streams' || o.changesDuring === 'both' ? `, a change every ${o.changeEveryMs} ms` : '';
  return mode === 'none'
    ? `no review stream open${changes}`
    : `${o.streams} following streams open${changes}`;
}

const ms = (x: number) => x.toFixed(1);
const range = (s: Spread, digits: number) => `${s.min.toFixed(digits)}–${s.max.toFixed(digits)}`;

function latencyTable(l: LatencyResult): string {
  const row = (what: string, d: Distribution) => [what, ms(d.p50), ms(d.p99), ms(d.max), ms(d.mean)];
  return [
    markdown(
      ['measure', 'p50 ms', 'p99 ms', 'max ms', 'mean ms'],
      [
        row("write's answer (commit) → STATE_DELTA applied", l.commitToDelta),
        row('write sent → its answer', l.write),
        row('write sent → STATE_DELTA applied', l.sendToDelta),
      ],
    ),
    '',
    `${l.beforeAnswer} of ${l.changes} deltas reached the client before the write's own answer (counted as 0 ms)`,
    `the state the client patched equals a fresh one-shot snapshot: ${l.converged ? 'yes' : 'NO'}`,
    `goal (issue 12): p99 commit → delta within 1000 ms: p99 ${ms(l.commitToDelta.p99)} ms: ${l.commitToDelta.p99 <= 1000 ? 'met' : 'not met'}`,
  ].join('\n');
}

function streamsTable(samples: readonly Sample[], orders: readonly string[], o: Options, args: BenchArgs) {
  const of = (mode: Mode) => samples.filter((s) => s.mode === mode);
  const row = (mode: Mode) => {
    const s = of(mode);
    const rps = spread(s.map((x) => x.reqPerSec));
    const p99 = spread(s.map((x) => x.p99));
    const cpu = spread(s.map((x) => x.cpuShare).filter((x) => Number.isFinite(x)));
    const chg = spread(s.map((x) => x.changesPerSec));
    const deltas = s.flatMap((x) => (x.deltasPerStream ? [x.deltasPerStream] : []));
    const changes = s.map((x) => x.changes);
    return [
      mode === 'none' ? 'no stream open' : `${o.streams} streams open`,
      rps.median.toFixed(0),
      range(rps, 0),
      ms(p99.median),
      Number.isFinite(cpu.median) ? `${(cpu.median * 100).toFixed(0)} %` : 'n/a',
      chg.median.toFixed(1),
      deltas.length === 0
        ? '–'
        : `${Math.min(...deltas.map((d) => d.min))}–${Math.max(...deltas.map((d) => d.max))} (of ${Math.min(...changes)}–${Math.max(...changes)})`,
    ];
  };
  const none = of('none');
  const ratios = of('streams').map((s, i) => s.reqPerSec / none[i]!.reqPerSec);
  const ratio = spread(ratios);
  return {
    ratios,
    ratio,
    text: [
      markdown(
        [
          'mode',
          'req/s median',
          'req/s min–max',
          'p99 ms median',
          'provider CPU (of one core)',
          'changes/s',
          'deltas per stream during the load',
        ],
        [row('none'), row('streams')],
      ),
      '',
      `reads: POST ${BENCH_PATH} under a grant token, ${args.connections} connections, ${args.rounds} round(s) × ${args.duration} s per mode (${args.warmup} s warm-up before each)`,
      o.subjects === 1
        ? `streams: ${o.streams} following review runs of ONE subject (the person whose profile is read), opened before the warm-up and connected for the whole load`
        : `streams: ${o.streams} following review runs of ${o.subjects} people (the reader's subject and ${o.subjects - 1} copies of the demo profile, stream i is person i mod ${o.subjects}), opened before the warm-up and connected for the whole load`,
      `changes: one every ${o.changeEveryMs} ms through POST /v1/profile/propose-updates, ${o.changesDuring === 'both' ? 'in BOTH modes (the ratio is the cost of the streams, not of the writes)' : 'in the streams mode only'}; ${o.subjects === 1 ? 'each open stream gets a STATE_DELTA per change' : `the people in turn, so each change is a STATE_DELTA on the streams of one person`}`,
      `throughput with streams / without, per round: ${ratios.map((x, i) => `${x.toFixed(3)} (${orders[i]})`).join(', ')}`,
      `ratio median ${ratio.median.toFixed(3)}, spread ${range(ratio, 3)} over ${ratios.length} round(s)`,
      `goal (issue 12): ${o.streams === 200 ? '200' : `${o.streams} (not 200)`} open streams cost less than 10 % of read throughput (ratio > 0.900): ${ratio.median > 0.9 ? 'met' : 'not met'}`,
    ].join('\n'),
  };
}

async function main(): Promise<void> {
  const args = benchArgs({
    changes: { type: 'string', default: '1000' },
    streams: { type: 'string', default: '200' },
    'change-every': { type: 'string', default: '100' },
    'changes-during': { type: 'string', default: 'both' },
    subjects: { type: 'string', default: '1' },
    profile: { type: 'string', default: 'demo' },
  });
  const o = options(args);
  await withDeadline(LABEL, args, async (children) => {
    const child = startChild('provider', [
      join(here, 'agui-server.ts'),
      '--profile',
      o.profile,
      '--subjects',
      String(o.subjects),
    ]);
    children.push(child);
    const r = (await child.ready) as unknown as Ready;
    const profileNote = o.profile === 'demo' ? 'the demo profile' : 'the 200-claim fixture';
    console.error(`${LABEL}: delta latency, ${o.changes} changes one after another`);
    const latency = await deltaLatency(r, o);
    console.log(
      `## Delta latency: ${o.changes} changes one after another, one following run (@ag-ui/client HttpAgent), ${profileNote}\n`,
    );
    console.log(`${latencyTable(latency)}\n`);

    const samples: Sample[] = [];
    const orders: string[] = [];
    for (let round = 0; round < args.rounds; round++) {
      const order: Mode[] = round % 2 === 0 ? ['none', 'streams'] : ['streams', 'none'];
      for (const mode of order) samples.push(await measureMode(r, child.proc.pid, args, o, mode, round + 1));
      orders.push(order.map((m) => (m === 'none' ? 'none' : 'streams')).join(' then '));
    }
    // In the order none, streams per round, whatever order they ran in.
    const sorted = Array.from({ length: args.rounds }, (_, i) => samples.slice(2 * i, 2 * i + 2)).flatMap(
      (pair) => [pair.find((s) => s.mode === 'none')!, pair.find((s) => s.mode === 'streams')!],
    );
    const table = streamsTable(sorted, orders, o, args);
    console.log(
      `## Cost of open streams: reads with no review stream and with ${o.streams} following streams, ${profileNote}\n`,
    );
    console.log(`${table.text}\n`);
    writeResults(LABEL, 'agui.json', {
      ...machine(),
      ...settings(args),
      profile: o.profile,
      changeCount: o.changes,
      streamCount: o.streams,
      streamSubjects: o.subjects,
      changeEveryMs: o.changeEveryMs,
      changesDuring: o.changesDuring,
      latencyClient: '@ag-ui/client HttpAgent',
      streamClient: 'lean SSE reader (node:http, events counted by type)',
      latency,
      rounds: orders.map((order, i) => ({ order, none: sorted[2 * i], streams: sorted[2 * i + 1] })),
      throughputRatio: table.ratio,
    });
  });
}

runMain(LABEL, main);
