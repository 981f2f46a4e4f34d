import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startChild, stopChild } from './children.ts';
import { BENCH_BODY, BENCH_PATH } from './fixtures.ts';
import { runMain } from './harness.ts';
import { markdown, spread } from './rounds.ts';

// `npm run bench:audit-listing [-- --repeat 5 --duration 5 --rounds 2 --connections 10]`: how
// GET /v1/audit/events behaves on a store of 100,000 audit events (audit-listing-server.ts, a
// child), as the subject: the time of a `since=` query near the end, of a rare `action=`, of
// reaching the newest event (`order=newest&limit=1`, reported unsupported if refused) and of
// walking every page oldest-first; then the throughput of grant-token reads of the profile
// (POST /v1/profile/effective, autocannon) while another client loops listing queries, against
// the same reads with no listing load, the two alternating round by round. Reports only.

const here = import.meta.dirname;

interface Ready {
  readonly url: string;
  readonly grantToken: string;
  readonly subjectToken: string;
  readonly since: string;
  readonly rareAction: string;
}

interface Page {
  readonly status: number;
  readonly ms: number;
  readonly events: number;
  readonly next?: string | undefined;
  readonly error?: string;
}

/** One listing request as the subject, timed from send to the parsed body. */
async function list(r: Ready, query: string): Promise<Page> {
  const t = performance.now();
  const res = await fetch(`${r.url}/v1/audit/events?${query}`, {
    headers: { authorization: `Bearer ${r.subjectToken}` },
  });
  const text = await res.text();
  const ms = performance.now() - t;
  const json = JSON.parse(text) as { events?: unknown[]; next_cursor?: string; error_description?: string };
  if (res.status !== 200) return { status: res.status, ms, events: 0, error: json.error_description ?? text };
  return { status: 200, ms, events: json.events?.length ?? 0, next: json.next_cursor };
}

/** `repeat` runs of one query: the median and max time, the events of the first page. */
async function timed(r: Ready, what: string, query: string, repeat: number): Promise<string[]> {
  const pages: Page[] = [];
  for (let i = 0; i < repeat; i++) pages.push(await list(r, query));
  const first = pages[0]!;
  if (first.status !== 200) {
    const unsupported = first.status === 400 && query.includes('order=');
    if (!unsupported) throw new Error(`${what}: ${first.status} ${first.error}`);
    return [what, query, 'unsupported', '–', `400: ${first.error?.slice(0, 80)}`];
  }
  const s = spread(pages.map((p) => p.ms));
  return [what, query, s.median.toFixed(1), s.max.toFixed(1), `${first.events} events`];
}

/** Every page oldest-first at 500 a page: total time, pages and events. */
async function walk(r: Ready): Promise<string[]> {
  const t = performance.now();
  let pages = 0;
  let events = 0;
  let cursor: string | undefined;
  do {
    const p = await list(r, `limit=500${cursor ? `&cursor=${cursor}` : ''}`);
    if (p.status !== 200) throw new Error(`walk: page ${pages + 1}: ${p.status} ${p.error}`);
    pages++;
    events += p.events;
    cursor = p.next;
  } while (cursor);
  const ms = performance.now() - t;
  return [
    'every page, oldest first',
    'limit=500&cursor=…',
    ms.toFixed(0),
    '–',
    `${pages} pages, ${events} events`,
  ];
}

/** The listing queries the loading client repeats, newest first only if the server takes it. */
function loopQueries(r: Ready, newest: boolean): string[] {
  return [
    `since=${encodeURIComponent(r.since)}&limit=500`,
    `action=${r.rareAction}&limit=500`,
    newest ? 'order=newest&limit=1' : 'limit=500',
  ];
}

interface Sample {
  readonly reqPerSec: number;
  readonly p99: number;
  readonly listings: number;
}

/** Reads for `duration` s; with `queries`, another client loops them meanwhile. */
async function reads(r: Ready, duration: number, connections: number, queries?: string[]): Promise<Sample> {
  let running = true;
  let listings = 0;
  const loop = (async () => {
    for (let i = 0; queries && running; i++) {
      const p = await list(r, queries[i % queries.length]!);
      if (p.status !== 200) throw new Error(`listing load: ${p.status} ${p.error}`);
      listings++;
    }
  })();
  try {
    const res = await autocannon({
      url: r.url + BENCH_PATH,
      method: 'POST',
      headers: { authorization: `Bearer ${r.grantToken}`, 'content-type': 'application/json' },
      body: BENCH_BODY,
      connections,
      duration,
      timeout: 10,
    });
    if (res.non2xx > 0 || res.errors > 0 || res['2xx'] === 0)
      throw new Error(`reads: ${res['2xx']} 2xx, ${res.non2xx} non-2xx, ${res.errors} errors`);
    return { reqPerSec: res.requests.mean, p99: res.latency.p99, listings: listings / duration };
  } finally {
    running = false;
    await loop;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repeat: { type: 'string', default: '5' },
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
    },
  });
  const [repeat, duration, rounds, connections] = [
    values.repeat,
    values.duration,
    values.rounds,
    values.connections,
  ].map(Number) as [number, number, number, number];
  for (const [name, v] of Object.entries({ repeat, duration, rounds, connections }))
    if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  console.error('bench:audit-listing: building a store of 100,000 audit events');
  const child = startChild('provider', [join(here, 'audit-listing-server.ts')]);
  try {
    const r = (await child.ready) as unknown as Ready;
    // One untimed listing first: the first request after the build pays for compiling the path.
    await list(r, 'limit=1');
    const newest = await timed(r, 'newest event', 'order=newest&limit=1', repeat);
    const queries = [
      await timed(r, 'since near the end', `since=${encodeURIComponent(r.since)}&limit=500`, repeat),
      await timed(r, 'rare action', `action=${r.rareAction}&limit=500`, repeat),
      newest,
      await walk(r),
    ];
    console.log(
      `Node ${process.version}; GET /v1/audit/events as the subject, 100,000 events in the store\n`,
    );
    console.log(markdown(['query', 'parameters', 'ms (median)', 'ms (max)', 'answer'], queries));

    await reads(r, 1, connections); // warm-up
    const loop = loopQueries(r, newest[2] !== 'unsupported');
    const samples = { quiet: [] as Sample[], listing: [] as Sample[] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['quiet', 'listing'] as const) : (['listing', 'quiet'] as const);
      for (const mode of order) {
        console.error(`bench:audit-listing: round ${round + 1}/${rounds}: reads, ${mode} (${duration} s)`);
        samples[mode].push(await reads(r, duration, connections, mode === 'listing' ? loop : undefined));
      }
    }
    const row = (mode: 'quiet' | 'listing', label: string) => {
      const s = samples[mode];
      const rps = spread(s.map((x) => x.reqPerSec));
      const p99 = spread(s.map((x) => x.p99));
      const listings = spread(s.map((x) => x.listings));
      return [
        label,
        rps.median.toFixed(0),
        `${rps.min.toFixed(0)}–${rps.max.toFixed(0)}`,
        p99.median.toFixed(1),
        mode === 'quiet' ? '–' : listings.median.toFixed(1),
      ];
    };
    const ratio = spread(samples.listing.map((s, i) => s.reqPerSec / samples.quiet[i]!.reqPerSec));
    console.log(
      `\nGrant-token reads of the profile, ${connections} connections, ${rounds} round(s) × ${duration} s each:\n`,
    );
    console.log(
      markdown(
        ['reads', 'req/s median', 'req/s min–max', 'p99 ms median', 'listings/s beside'],
        [row('quiet', 'no listing load'), row('listing', 'beside a listing loop')],
      ),
    );
    console.log(`\nthe listing loop (one client, one query at a time): ${loop.join(' ; ')}`);
    console.log(
      `reads under listing load / without, per round: median ${ratio.median.toFixed(3)}, spread ${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)}`,
    );
  } finally {
    await stopChild(child);
  }
}

runMain('bench:audit-listing', main);
