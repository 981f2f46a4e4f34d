import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './children.ts';
import {
  benchArgs,
  machine,
  providerExecArgv,
  resultsDir,
  runMain,
  settings,
  withDeadline,
  writeResults,
} from './harness.ts';
import { refreshTokenOf } from './oauth-refresh.ts';
import { BENCH_DATABASE_URL, benchSchema } from './postgres-schema.ts';
import { summarizeProfiles } from './profile-summary.ts';
import { formOf, type Load, load, post } from './refresh-load.ts';
import { markdown, spread } from './rounds.ts';

// `npm run bench:refresh [-- --store sqlite|postgres --connections 32 --duration 10 --rounds 3
// --warmup 2]`
// Refresh-token rotations (POST /oauth/token, grant_type=refresh_token, RFC 6749 §6) per second:
// `--connections` token families of the demo client, each made through the consent flow and then
// rotated one rotation after the other, its next request carrying the token the last one returned,
// all families at once; against the floor of a token endpoint in the same run
// (bench/token-baseline-server.ts: parse the form, answer the provider's own token response),
// rounds alternating the order. Besides wall-clock rotations/s it reports the provider's CPU time
// per rotation (Linux /proc) and so rotations per CPU-second: the figure "on one core", which the
// load generator sharing the machine's two cores does not blur (issue 14: at least 4,000/s;
// Keycloak publishes about 120/s per vCPU). Every answer must be a 200 with a new refresh token;
// afterwards a spent token is presented again and must be refused. Writes bench/results/refresh-<store>.json.
// BENCH_PROFILE=1 runs the provider under --cpu-prof and prints its hot spots afterwards.

const here = import.meta.dirname;

async function main(): Promise<void> {
  const args = benchArgs({
    store: { type: 'string', default: 'sqlite' },
    'database-url': {
      type: 'string',
      default: BENCH_DATABASE_URL,
    },
  });
  const store = String(args.extra['store']);
  if (store !== 'sqlite' && store !== 'postgres') throw new Error('--store is sqlite or postgres');
  const databaseUrl = String(args.extra['database-url']);
  const schema = benchSchema('bench_refresh', databaseUrl);
  const tmp = mkdtempSync(join(tmpdir(), 'ppx-bench-refresh-'));
  const rounds: { provider: Load; baseline: Load; order: string[] }[] = [];
  let replayRefused = false;
  try {
    await withDeadline('bench:refresh', args, async (children) => {
      const argv = [join(here, 'provider-server.ts'), '--profile', 'demo'];
      if (store === 'postgres') argv.push('--database-url', schema.url);
      const providerChild = startChild('provider', argv, { execArgv: providerExecArgv(args) });
      children.push(providerChild);
      const info = await providerChild.ready;
      const url = info['url']!;
      console.error(`bench:refresh: making ${args.connections} token families through the consent flow`);
      const chains: string[] = [];
      for (let i = 0; i < args.connections; i++)
        chains.push(await refreshTokenOf(url, info['subjectToken']!));
      const spent = chains[0]!;
      // The baseline answers the provider's own token response.
      const agent = new Agent({ keepAlive: true });
      const sample = await post(agent, new URL('/oauth/token', url), formOf(chains[0]!));
      agent.destroy();
      if (sample.status !== 200) throw new Error(`rotation: ${sample.status} ${sample.body}`);
      chains[0] = (JSON.parse(sample.body) as { refresh_token: string }).refresh_token;
      const file = join(tmp, 'token.json');
      writeFileSync(file, sample.body);
      const baselineChild = startChild('baseline', [join(here, 'token-baseline-server.ts'), file]);
      children.push(baselineChild);
      const baselineUrl = (await baselineChild.ready)['url']!;
      const fixed = chains.map(() => 'baseline-token');
      if (args.warmup > 0) {
        console.error(`bench:refresh: warming up (${args.warmup} s each)`);
        await load(url, chains, args.warmup, undefined);
        await load(baselineUrl, fixed, args.warmup, undefined);
      }
      for (let round = 0; round < args.rounds; round++) {
        const order = round % 2 === 0 ? ['provider', 'baseline'] : ['baseline', 'provider'];
        const result: Partial<Record<'provider' | 'baseline', Load>> = {};
        for (const name of order) {
          console.error(`bench:refresh: round ${round + 1}/${args.rounds}: ${name} (${args.duration} s)`);
          result[name as 'provider' | 'baseline'] =
            name === 'provider'
              ? await load(url, chains, args.duration, providerChild.proc.pid)
              : await load(baselineUrl, fixed, args.duration, baselineChild.proc.pid);
        }
        rounds.push({ provider: result.provider!, baseline: result.baseline!, order });
      }
      // A token already rotated, presented again: refused (and its family revoked, RFC 9700 §4.14.2).
      const replay = new Agent({ keepAlive: false });
      const again = await post(replay, new URL('/oauth/token', url), formOf(spent));
      replay.destroy();
      replayRefused = again.status === 400 && /invalid_grant/.test(again.body);
      if (!replayRefused)
        throw new Error(`a spent refresh token was not refused: ${again.status} ${again.body}`);
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    if (store === 'postgres') await schema.drop();
  }
  const perSecond = (l: Load) => l.rotations / l.seconds;
  const perCpuSecond = (l: Load) => (l.rotations / l.cpuMicros) * 1e6;
  const row = (name: string, loads: Load[]) => {
    const rate = spread(loads.map(perSecond));
    const cpu = spread(loads.map((l) => l.cpuMicros / l.rotations));
    return [
      name,
      `${rate.median.toFixed(0)} (${rate.min.toFixed(0)}–${rate.max.toFixed(0)})`,
      spread(loads.map((l) => l.p50)).median.toFixed(2),
      spread(loads.map((l) => l.p99)).median.toFixed(2),
      Number.isFinite(cpu.median) ? cpu.median.toFixed(0) : 'n/a',
      Number.isFinite(cpu.median) ? spread(loads.map(perCpuSecond)).median.toFixed(0) : 'n/a',
    ];
  };
  console.log(
    markdown(
      ['target', 'rotations/s (min–max)', 'p50 ms', 'p99 ms', 'CPU µs/rotation', 'rotations per CPU-second'],
      [
        row(
          `provider (${store})`,
          rounds.map((r) => r.provider),
        ),
        row(
          'baseline',
          rounds.map((r) => r.baseline),
        ),
      ],
    ),
  );
  console.log(
    `ratio provider/baseline (rotations/s): ${spread(rounds.map((r) => perSecond(r.provider) / perSecond(r.baseline))).median.toFixed(3)}; ` +
      `a spent token presented again: ${replayRefused ? 'refused' : 'ACCEPTED'}; target (issue 14): 4,000 rotations per CPU-second`,
  );
  writeResults('bench:refresh', `refresh-${store}.json`, { ...machine(), ...settings(args), store, rounds });
  if (args.profiling) summarizeProfiles(resultsDir, 30);
}

runMain('bench:refresh', main);
