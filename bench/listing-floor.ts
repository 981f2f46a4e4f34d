import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

// `node bench/listing-floor.ts [--duration 10] [--events 50] [--keys 200]`
// The floor under bench:scale's audit-listing figure: a bare node:http server in a child process
// answering every request with the same bytes, a page shaped like the provider's (`--events`
// events, each naming `--keys` claim keys: ~300 KB at 50 × 200), fetched one request at a time
// for `--duration` seconds exactly as bench:scale fetches the listing (fetch, then the whole body).
// Once with the page serialized anew for every request, once with its bytes made once. What the
// machine takes to move such a page from one process to another, whatever the server does; the
// provider's listing is compared with it in docs/benchmarks.md (issue 23, item 5).

function page(events: number, keys: number): unknown {
  const claimKeys = Array.from({ length: keys }, (_, k) => `fragrance.preference_key_${k}`);
  return {
    events: Array.from({ length: events }, (_, i) => ({
      event_id: `ppx:audit:floor-${i}`,
      at: new Date(Date.UTC(2026, 11, 1, 0, 0, i)).toISOString(),
      subject_id: 'did:example:scale-0000000',
      actor: { kind: 'grantee', id: 'scale-app-00' },
      grant_id: 'ppx:grant:scale-0000000-000',
      action: 'profile_read',
      claim_keys: claimKeys,
      outcome: 'allowed',
    })),
    next_cursor: 'floor',
  };
}

function serve(events: number, keys: number, fixed: boolean): void {
  const value = page(events, keys);
  const made = Buffer.from(JSON.stringify(value));
  const server = createServer((_req, res) => {
    const body = fixed ? made : Buffer.from(JSON.stringify(value));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
}

async function measure(fixed: boolean, seconds: number, events: number, keys: number) {
  const child = fork(import.meta.filename, [
    '--serve',
    String(events),
    String(keys),
    fixed ? 'fixed' : 'fresh',
  ]);
  try {
    const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
    const url = `http://127.0.0.1:${port}/`;
    let bytes = 0;
    for (let i = 0; i < 200; i++) bytes = (await (await fetch(url)).arrayBuffer()).byteLength;
    const times: number[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const t0 = performance.now();
      await (await fetch(url)).arrayBuffer();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
    return { fixed, bytes, requests: times.length, p50: at(0.5), p99: at(0.99) };
  } finally {
    child.kill();
  }
}

if (process.argv[2] === '--serve') {
  serve(Number(process.argv[3]), Number(process.argv[4]), process.argv[5] === 'fixed');
} else {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      events: { type: 'string', default: '50' },
      keys: { type: 'string', default: '200' },
    },
  });
  const [seconds, events, keys] = [Number(values.duration), Number(values.events), Number(values.keys)];
  console.log('| server | page bytes | requests | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  for (const fixed of [false, true]) {
    const r = await measure(fixed, seconds, events, keys);
    const name = fixed ? 'bare, bytes made once' : 'bare, JSON.stringify per request';
    console.log(`| ${name} | ${r.bytes} | ${r.requests} | ${r.p50} | ${r.p99} |`);
  }
}
