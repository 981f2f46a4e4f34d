import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEMO_CLIENTS } from '../src/operations/seed/demo-profile.ts';
import { startChild } from './children.ts';
import { BENCH_BODY } from './fixtures.ts';
import { machine, runMain, withDeadline, writeResults } from './harness.ts';
import { consentTokens, postJson } from './oauth-refresh.ts';
import { BENCH_DATABASE_URL, benchSchema } from './postgres-schema.ts';
import { markdown } from './rounds.ts';

// `npm run bench:revocation [-- --trials 200 --readers 4]`
// Revocation across two instances on one PostgreSQL database (issue 14, item 5): for each trial a
// fresh grant (the consent flow, through instance A), then `--readers` loops reading the effective
// profile with its access token, spread over both instances, while the person revokes the grant
// through instance A. Every request that STARTS after the revoke's answer arrived must fail
// (target: 0 successes, every run), whichever instance it reaches; so must the grant's refresh
// token, tried on instance B right after. Requests started before the answer may go either way
// and are only counted. Writes bench/results/revocation.json.

const here = import.meta.dirname;
const PATH = '/v1/profile/effective';

interface Trial {
  readonly before: number;
  readonly afterSucceeded: number;
  readonly afterFailed: number;
  readonly refreshAfter: number;
  /** From the revoke's answer to the first refused request, ms. */
  readonly firstRefusalMs: number;
}

async function read(url: string, token: string): Promise<number> {
  const res = await fetch(url + PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: BENCH_BODY,
  });
  await res.arrayBuffer();
  return res.status;
}

async function trial(a: string, b: string, subjectToken: string, readers: number): Promise<Trial> {
  const tokens = await consentTokens(a, subjectToken);
  if ((await read(b, tokens.access_token)) !== 200)
    throw new Error('a fresh grant does not read on instance B');
  let revokedAt = Number.POSITIVE_INFINITY;
  let stop = false;
  let before = 0;
  let afterSucceeded = 0;
  let afterFailed = 0;
  let firstRefusal = Number.POSITIVE_INFINITY;
  const loops = Array.from({ length: readers }, async (_, i) => {
    const url = i % 2 === 0 ? b : a;
    while (!stop) {
      const started = performance.now();
      const status = await read(url, tokens.access_token);
      if (started < revokedAt) {
        before += 1;
        continue;
      }
      if (status === 200) afterSucceeded += 1;
      else {
        afterFailed += 1;
        firstRefusal = Math.min(firstRefusal, performance.now() - revokedAt);
      }
      if (afterFailed + afterSucceeded >= readers * 3) stop = true;
    }
  });
  // Let the readers run, then revoke through A.
  await new Promise((resolve) => setTimeout(resolve, 20));
  await postJson(`${a}/v1/consent/revoke`, { grant_id: tokens.grant_id }, subjectToken);
  revokedAt = performance.now();
  await Promise.all(loops);
  const refreshed = await fetch(`${b}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: DEMO_CLIENTS[0].client_id,
    }),
  });
  await refreshed.arrayBuffer();
  return {
    before,
    afterSucceeded,
    afterFailed,
    refreshAfter: refreshed.status === 200 ? 1 : 0,
    firstRefusalMs: firstRefusal,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      trials: { type: 'string', default: '200' },
      readers: { type: 'string', default: '4' },
      'database-url': {
        type: 'string',
        default: BENCH_DATABASE_URL,
      },
    },
  });
  const trials = Number(values.trials);
  const readers = Number(values.readers);
  if (!Number.isInteger(trials) || trials < 1) throw new Error('--trials must be a positive integer');
  if (!Number.isInteger(readers) || readers < 1) throw new Error('--readers must be a positive integer');
  const databaseUrl = values['database-url'];
  const schema = benchSchema('bench_revocation', databaseUrl);
  const results: Trial[] = [];
  try {
    const args = {
      duration: trials,
      connections: 1,
      warmup: 0,
      rounds: 1,
      cold: false,
      profiling: false,
      extra: {},
    };
    await withDeadline('bench:revocation', args, async (children) => {
      const first = startChild('instance A', [
        join(here, 'provider-server.ts'),
        '--profile',
        'demo',
        '--database-url',
        schema.url,
      ]);
      children.push(first);
      const info = await first.ready;
      const second = startChild('instance B', [
        join(here, 'instance-server.ts'),
        '--database-url',
        schema.url,
        '--base-url',
        info['baseUrl']!,
      ]);
      children.push(second);
      const b = (await second.ready)['url']!;
      for (let i = 0; i < trials; i++) {
        results.push(await trial(info['url']!, b, info['subjectToken']!, readers));
        if ((i + 1) % 50 === 0) console.error(`bench:revocation: ${i + 1}/${trials} trials`);
      }
    });
  } finally {
    await schema.drop();
  }
  const sum = (pick: (t: Trial) => number) => results.reduce((n, t) => n + pick(t), 0);
  const refusals = results
    .map((t) => t.firstRefusalMs)
    .filter(Number.isFinite)
    .sort((x, y) => x - y);
  const succeeded = sum((t) => t.afterSucceeded) + sum((t) => t.refreshAfter);
  console.log(
    markdown(
      [
        'trials',
        'reads before the revoke answered',
        'reads after: refused',
        'reads after: succeeded',
        'refresh after: succeeded',
        'first refusal after the answer, p50 ms',
      ],
      [
        [
          String(trials),
          String(sum((t) => t.before)),
          String(sum((t) => t.afterFailed)),
          String(sum((t) => t.afterSucceeded)),
          String(sum((t) => t.refreshAfter)),
          (refusals[Math.floor(refusals.length / 2)] ?? Number.NaN).toFixed(2),
        ],
      ],
    ),
  );
  console.log(
    `target (issue 14): 0 successes after the revoke: ${succeeded === 0 ? 'met' : `NOT met (${succeeded})`}`,
  );
  writeResults('bench:revocation', 'revocation.json', { ...machine(), trials, readers, results });
  if (succeeded > 0) process.exitCode = 1;
}

runMain('bench:revocation', main);
