import { existsSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { issueGrantToken, issueSubjectToken } from '../src/operations/tokens/issue-tokens.ts';
import { startServer } from '../src/server.ts';
import { type BenchProfile, DEMO, readerOf, seedBenchProvider } from './bench-provider.ts';
import { BENCH_BODY, BENCH_PATH } from './fixtures.ts';
import { runMain } from './harness.ts';
import { refreshTokenOf, rotate } from './oauth-refresh.ts';
import { markdown } from './rounds.ts';

// `npm run bench:audit-size [-- --reads 2000 --rotations 1000]`: how many bytes the SQLite file
// grows per read and per refresh-token rotation. For each profile (the demo profile, the
// 200-claim fixture, a 2,000-claim one) a real provider in this process, on its own SQLite
// file, serves `--reads` grant-token reads of POST /v1/profile/effective over HTTP (autocannon,
// 10 connections); the size of the file is taken before and after, each time after
// `PRAGMA wal_checkpoint(TRUNCATE)` (main db + WAL), and the growth divided by the reads. The
// last row rotates a refresh token `--rotations` times through POST /oauth/token
// (grant_type=refresh_token), one after the other. Sizes only: no timing is reported.

interface Growth {
  readonly what: string;
  readonly operations: number;
  readonly before: number;
  readonly after: number;
  /** Audit events the subject's log gained, counted through GET /v1/audit/events. */
  readonly events: number;
}

/** Main db + WAL bytes after a TRUNCATE checkpoint from a connection of our own. */
function fileBytes(dbPath: string): number {
  const db = new DatabaseSync(dbPath);
  try {
    const r = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number };
    if (r.busy !== 0) throw new Error('wal_checkpoint(TRUNCATE) was blocked by a reader');
  } finally {
    db.close();
  }
  const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
  return size(dbPath) + size(`${dbPath}-wal`);
}

/** The number of events in the subject's audit log (the subject sees all of them). */
async function auditEvents(url: string, subjectToken: string): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const q = `limit=500${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await fetch(`${url}/v1/audit/events?${q}`, {
      headers: { authorization: `Bearer ${subjectToken}` },
    });
    if (res.status !== 200) throw new Error(`audit listing: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { events: unknown[]; next_cursor?: string };
    n += page.events.length;
    cursor = page.next_cursor;
  } while (cursor);
  return n;
}

interface Running {
  readonly url: string;
  readonly grantToken: string;
  readonly subjectToken: string;
}

/**
 * A provider on `profile`: `prepare` runs first, then `work` (given what `prepare` made) between
 * two measurements of the file; `work` resolves to the number of operations it did.
 */
async function measured<T>(
  what: string,
  profile: BenchProfile,
  prepare: (p: Running) => Promise<T>,
  work: (p: Running, prepared: T) => Promise<number>,
): Promise<Growth> {
  const bench = await seedBenchProvider('ppx-bench-size-', profile);
  const server = await startServer(bench.deps, bench.config, () => undefined);
  try {
    const p: Running = {
      url: server.url,
      grantToken: (await issueGrantToken(bench.deps, bench.grant)).access_token,
      subjectToken: (await issueSubjectToken(bench.deps, readerOf(profile).subject)).access_token,
    };
    await reads(p.url, p.grantToken, 50); // first writes of the statements, caches, WAL
    const prepared = await prepare(p);
    const before = fileBytes(bench.config.dbPath);
    const eventsBefore = await auditEvents(p.url, p.subjectToken);
    const operations = await work(p, prepared);
    const after = fileBytes(bench.config.dbPath);
    const events = (await auditEvents(p.url, p.subjectToken)) - eventsBefore;
    return { what, operations, before, after, events };
  } finally {
    await server.close();
    await bench.deps.store.close();
    rmSync(bench.dir, { recursive: true, force: true });
  }
}

/** `n` reads of the effective profile over HTTP; fails unless every one is a 200. */
async function reads(url: string, token: string, n: number): Promise<number> {
  const r = await autocannon({
    url: url + BENCH_PATH,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: BENCH_BODY,
    connections: Math.min(10, n),
    amount: n,
    timeout: 10,
  });
  if (r.non2xx > 0 || r.errors > 0 || r['2xx'] !== n)
    throw new Error(`reads: ${r['2xx']} 2xx of ${n}, ${r.non2xx} non-2xx, ${r.errors} errors`);
  return n;
}

function row(g: Growth): string[] {
  const delta = g.after - g.before;
  return [
    g.what,
    String(g.operations),
    String(g.before),
    String(g.after),
    (delta / g.operations).toFixed(0),
    (g.events / g.operations).toFixed(2),
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { reads: { type: 'string', default: '2000' }, rotations: { type: 'string', default: '1000' } },
  });
  const n = Number(values.reads);
  const rotations = Number(values.rotations);
  if (!Number.isInteger(n) || n <= 0) throw new Error('--reads must be a positive integer');
  if (!Number.isInteger(rotations) || rotations <= 0)
    throw new Error('--rotations must be a positive integer');
  const cases: [string, BenchProfile][] = [
    ['read, demo profile', DEMO],
    ['read, 200 claims', { kind: 'bench', claims: 200 }],
    ['read, 2,000 claims', { kind: 'bench', claims: 2000 }],
  ];
  const growth: Growth[] = [];
  for (const [what, profile] of cases) {
    console.error(`bench:audit-size: ${what}, ${n} reads`);
    growth.push(
      await measured(
        what,
        profile,
        async () => undefined,
        (p) => reads(p.url, p.grantToken, n),
      ),
    );
  }
  console.error(`bench:audit-size: ${rotations} refresh-token rotations`);
  growth.push(
    await measured(
      'refresh-token rotation',
      DEMO,
      (p) => refreshTokenOf(p.url, p.subjectToken),
      async (p, first) => {
        await rotate(p.url, first, rotations);
        return rotations;
      },
    ),
  );
  const head = [
    'operation',
    'count',
    'bytes before',
    'bytes after',
    'bytes per operation',
    'audit events per op',
  ];
  console.log(`Node ${process.version}; SQLite file (main db + WAL) after wal_checkpoint(TRUNCATE)\n`);
  console.log(markdown(head, growth.map(row)));
}

runMain('bench:audit-size', main);
