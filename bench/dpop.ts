import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { verifyProof } from '../src/auth/dpop.ts';
import { dpopKey, proof } from '../test/support/dpop.ts';
import { startChild, stopChild } from './children.ts';
import { cpuMicros, machine, runMain, writeResults } from './harness.ts';

// `npm run bench:dpop [-- --requests 3000 --rounds 7 --profile demo|large]`
// What DPoP (RFC 9449) adds to a request's CPU (issue 25 item 3: under 10 %). The provider runs in
// its own process (bench/provider-server.ts, SQLite, the demo profile by default: the small read,
// where a fixed cost weighs most); this process is the client. Rounds alternate `--requests`
// sequential reads of /v1/profile/effective with a bearer token and the same reads with a
// DPoP-bound token of the same grant and a fresh proof each (signed before the round: signing is
// the client's cost). The provider's own CPU over each round (/proc, so the client is not counted)
// gives µs per request; the added share is the median of the rounds' differences over the median
// bearer request. A micro-benchmark times the proof check alone (verifyProof) in this process.

const PATH = '/v1/profile/effective';
const here = dirname(fileURLToPath(import.meta.url));

async function main() {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '3000' },
      rounds: { type: 'string', default: '7' },
      profile: { type: 'string', default: 'demo' },
    },
  });
  const n = Number(values.requests);
  const rounds = Number(values.rounds);
  const key = await dpopKey();
  const child = startChild('provider', [
    join(here, 'provider-server.ts'),
    '--profile',
    String(values.profile),
    '--dpop-jkt',
    key.jkt,
  ]);
  try {
    const ready = await child.ready;
    const { url, token: bearer, dpopToken, baseUrl } = ready as Record<string, string>;
    if (!dpopToken || !baseUrl) throw new Error('the provider did not print a DPoP-bound token');
    const target = `${url}${PATH}`;
    const htu = `${baseUrl}${PATH}`;
    const read = async (headers: Record<string, string>) => {
      const r = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
      await r.arrayBuffer();
      if (r.status !== 200)
        throw new Error(`a read answered ${r.status}: ${r.headers.get('www-authenticate')}`);
    };
    const proofs = async (count: number) =>
      Promise.all(
        Array.from({ length: count }, () => proof(key, { htm: 'POST', htu, accessToken: dpopToken })),
      );
    const loop = async (kind: 'bearer' | 'dpop') => {
      const made = kind === 'dpop' ? await proofs(n) : [];
      const before = cpuMicros(child.proc.pid);
      for (let i = 0; i < n; i++) {
        await read(
          kind === 'bearer'
            ? { authorization: `Bearer ${bearer}` }
            : { authorization: `DPoP ${dpopToken}`, dpop: made[i] as string },
        );
      }
      const after = cpuMicros(child.proc.pid);
      if (before === undefined || after === undefined) throw new Error('bench:dpop reads /proc (Linux only)');
      return (after - before) / n;
    };
    // Warm up both paths (JIT, caches).
    await loop('bearer');
    await loop('dpop');
    const rows: { round: number; bearer: number; dpop: number }[] = [];
    for (let r = 1; r <= rounds; r++) {
      const bearerUs = await loop('bearer');
      const dpopUs = await loop('dpop');
      rows.push({ round: r, bearer: bearerUs, dpop: dpopUs });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const bearerUs = median(rows.map((x) => x.bearer));
    const dpopUs = median(rows.map((x) => x.dpop));
    const addedUs = median(rows.map((x) => x.dpop - x.bearer));

    // The proof check alone, in this process.
    const micro = async () => {
      const made = await proofs(n);
      const start = process.cpuUsage();
      for (const one of made) {
        const r = await verifyProof(one, { htm: 'POST', htu, now: new Date(), accessToken: dpopToken });
        if (!r.ok) throw new Error(r.error.description);
      }
      const cpu = process.cpuUsage(start);
      return (cpu.user + cpu.system) / n;
    };
    await micro();
    const verifyUs = await micro();

    const f = (x: number) => x.toFixed(0);
    const pct = (added: number, base: number) => `${((added / base) * 100).toFixed(1)} %`;
    console.log(`provider CPU per request, ${values.profile} profile, ${n} sequential reads a round`);
    console.log('| round | bearer, µs | DPoP, µs | added, µs | added |');
    console.log('|---|---:|---:|---:|---:|');
    for (const row of rows) {
      const added = row.dpop - row.bearer;
      console.log(
        `| ${row.round} | ${f(row.bearer)} | ${f(row.dpop)} | ${f(added)} | ${pct(added, row.bearer)} |`,
      );
    }
    console.log(`| median | ${f(bearerUs)} | ${f(dpopUs)} | ${f(addedUs)} | **${pct(addedUs, bearerUs)}** |`);
    console.log(`\nproof check alone (verifyProof, ES256): ${f(verifyUs)} µs CPU`);
    writeResults('bench:dpop', 'dpop.json', {
      machine: machine(),
      profile: values.profile,
      requests: n,
      rounds: rows,
      medianBearerCpuUs: bearerUs,
      medianDpopCpuUs: dpopUs,
      medianAddedCpuUs: addedUs,
      addedPercent: (addedUs / bearerUs) * 100,
      verifyProofCpuUs: verifyUs,
    });
  } finally {
    await stopChild(child);
  }
}

runMain('bench:dpop', main);
