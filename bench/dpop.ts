import { parseArgs } from 'node:util';
import { verifyProof } from '../src/auth/dpop.ts';
import { checkProof } from '../src/operations/tokens/dpop-proof.ts';
import { issueGrantToken } from '../src/operations/tokens/issue-tokens.ts';
import { dpopKey, proof } from '../test/support/dpop.ts';
import { startTestProvider } from '../test/support/provider.ts';
import { machine, runMain, writeResults } from './harness.ts';

// `npm run bench:dpop [-- --requests 1000 --rounds 5]`
// What DPoP (RFC 9449) adds to a request's CPU (issue 25 item 3: under 10 %). One process runs the
// provider (SQLite) and the client: rounds alternate `--requests` sequential reads of
// /v1/profile/effective with a bearer token and the same reads with a DPoP-bound token and a
// fresh proof each (proofs signed before the clock starts: signing is the client's cost, not the
// provider's). process.cpuUsage over each loop gives CPU per request, client included on both
// sides, so the difference is what DPoP adds on the server (and two headers on the client). A
// micro-benchmark times the proof check alone (verifyProof, and checkProof with the replay ledger).

const PATH = '/v1/profile/effective';

async function main() {
  const { values } = parseArgs({
    options: { requests: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '5' } },
  });
  const n = Number(values.requests);
  const rounds = Number(values.rounds);
  const p = await startTestProvider();
  try {
    const key = await dpopKey();
    const { grant, token: bearer } = await p.grant();
    const bound = (await issueGrantToken(p.deps, grant, undefined, undefined, key.jkt)).access_token;
    const htu = `${p.url}${PATH}`;
    const read = async (headers: Record<string, string>) => {
      const r = await fetch(htu, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`a read answered ${r.status}`);
    };
    const proofs = async (count: number) =>
      Promise.all(Array.from({ length: count }, () => proof(key, { htm: 'POST', htu, accessToken: bound })));
    const loop = async (kind: 'bearer' | 'dpop') => {
      const made = kind === 'dpop' ? await proofs(n) : [];
      const start = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        await read(
          kind === 'bearer'
            ? { authorization: `Bearer ${bearer}` }
            : { authorization: `DPoP ${bound}`, dpop: made[i]! },
        );
      }
      const cpu = process.cpuUsage(start);
      return { cpuUs: (cpu.user + cpu.system) / n, wallUs: ((performance.now() - t0) * 1000) / n };
    };
    // Warm up both paths (JIT, caches).
    await loop('bearer');
    await loop('dpop');
    const rows: { round: number; bearer: number; dpop: number }[] = [];
    for (let r = 1; r <= rounds; r++) {
      const b = await loop('bearer');
      const d = await loop('dpop');
      rows.push({ round: r, bearer: b.cpuUs, dpop: d.cpuUs });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const bearerUs = median(rows.map((x) => x.bearer));
    const dpopUs = median(rows.map((x) => x.dpop));

    // The proof check alone, in the calling thread.
    const micro = async (what: 'verifyProof' | 'checkProof') => {
      const made = await proofs(n);
      const start = process.cpuUsage();
      for (const one of made) {
        const r =
          what === 'verifyProof'
            ? await verifyProof(one, { htm: 'POST', htu, now: new Date(), accessToken: bound })
            : await checkProof(p.deps, one, { method: 'POST', path: PATH, accessToken: bound });
        if (!r.ok) throw new Error(r.error.description);
      }
      const cpu = process.cpuUsage(start);
      return (cpu.user + cpu.system) / n;
    };
    await micro('verifyProof');
    const verifyUs = await micro('verifyProof');
    const checkUs = await micro('checkProof');

    const f = (x: number) => x.toFixed(0);
    console.log('| round | bearer request, µs CPU | DPoP request, µs CPU | added |');
    console.log('|---|---:|---:|---:|');
    for (const row of rows) {
      console.log(
        `| ${row.round} | ${f(row.bearer)} | ${f(row.dpop)} | ${(((row.dpop - row.bearer) / row.bearer) * 100).toFixed(1)} % |`,
      );
    }
    const added = ((dpopUs - bearerUs) / bearerUs) * 100;
    console.log(`| median | ${f(bearerUs)} | ${f(dpopUs)} | **${added.toFixed(1)} %** |`);
    console.log(
      `\nproof check alone: verifyProof ${f(verifyUs)} µs, checkProof (with the replay ledger) ${f(checkUs)} µs CPU`,
    );
    writeResults('bench:dpop', 'dpop.json', {
      machine: machine(),
      requests: n,
      rounds: rows,
      medianBearerCpuUs: bearerUs,
      medianDpopCpuUs: dpopUs,
      addedPercent: added,
      verifyProofCpuUs: verifyUs,
      checkProofCpuUs: checkUs,
    });
  } finally {
    await p.close();
  }
}

runMain('bench:dpop', main);
