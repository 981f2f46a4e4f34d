import { DEMO_SUBJECT } from '../../src/operations/seed/demo-profile.ts';
import { DEMO_LOGIN } from '../../src/operations/seed/seed-demo.ts';
import { issueSubjectToken } from '../../src/operations/tokens/issue-tokens.ts';
import { freePort } from '../support/provider.ts';
import { prng } from '../support/random.ts';
import { type RoundSize, type Subject, seedRound } from '../support/seed-over-http.ts';
import { signInOverHttp } from '../support/web-session.ts';
import { type Checks, checkRound } from './checks.ts';
import { fireAndKill, KINDS, type Kind, writesOf } from './load.ts';
import { killHard, type Served, serve } from './serve-child.ts';
import { crashStore, type StoreKind } from './stores.ts';

// A crash run on one store: `ppx serve` started on a fresh database, then per round: seed,
// fire the load, SIGKILL the server once a random number of writes have been acknowledged,
// restart it on the same database, check. The server restarted by one round serves the next.

/** The quick variant's round (crash.test.ts): about 300 writes. */
export const QUICK_ROUND: RoundSize = {
  proposers: 4,
  proposalsEach: 15,
  confirmations: 60,
  families: 16,
  refreshesEach: 5,
  revocations: 40,
  decisions: 40,
};

/** The full run's round (run.ts): about 600 writes. */
export const FULL_ROUND: RoundSize = {
  proposers: 6,
  proposalsEach: 20,
  confirmations: 120,
  families: 24,
  refreshesEach: 6,
  revocations: 80,
  decisions: 80,
};

export interface RoundReport {
  readonly round: number;
  /** Writes started, and per kind. */
  readonly fired: number;
  readonly firedByKind: Readonly<Record<Kind, number>>;
  readonly acked: number;
  readonly ackedByKind: Readonly<Record<Kind, number>>;
  /** Requests started and not answered when SIGKILL was sent. */
  readonly inFlightAtKill: number;
  readonly unanswered: number;
  readonly checks: Checks;
  /** How long the round's phases took, in ms. */
  readonly ms: {
    readonly seed: number;
    readonly load: number;
    readonly restart: number;
    readonly check: number;
  };
}

export interface RunOptions {
  readonly rounds: number;
  readonly size: RoundSize;
  readonly seed: number;
  /** Requests at once besides the refresh families. */
  readonly width?: number;
  /** Called after each round (run.ts prints progress). */
  readonly onRound?: (report: RoundReport) => void;
}

function byKind(fired: readonly { kind: Kind }[]): Record<Kind, number> {
  const out = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  for (const f of fired) out[f.kind]++;
  return out;
}

export async function crashRun(kind: StoreKind, options: RunOptions): Promise<RoundReport[]> {
  const store = crashStore(kind);
  const rand = prng(options.seed);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server: Served | undefined;
  const reports: RoundReport[] = [];
  try {
    server = await serve(store.serveFlags, port, base);
    const cli = await store.open(base);
    let token: string;
    try {
      token = (await issueSubjectToken(cli, DEMO_SUBJECT, 6 * 3600)).access_token;
    } finally {
      await cli.store.close();
    }
    const session = await signInOverHttp(base, DEMO_LOGIN.username, DEMO_LOGIN.password);
    const subject: Subject = { token, ...session };

    for (let round = 1; round <= options.rounds; round++) {
      const t0 = performance.now();
      const material = await seedRound(base, subject, options.size);
      const t1 = performance.now();
      const total = writesOf(options.size);
      const running: Served = server;
      const load = await fireAndKill({
        base,
        subject,
        material,
        size: options.size,
        rand,
        width: options.width ?? 24,
        killAfter: Math.max(1, Math.floor(total * (0.3 + 0.5 * rand()))),
        killAfterFires: 1 + Math.floor(rand() * 12),
        kill: () => killHard(running),
      });
      const t2 = performance.now();
      server = await serve(store.serveFlags, port, base);
      const t3 = performance.now();
      const deps = await store.open(base);
      let checks: Checks;
      try {
        checks = await checkRound({ base, store, deps, subject, material, load });
      } finally {
        await deps.store.close();
      }
      const t4 = performance.now();
      const ackedOnes = load.fired.filter((f) => f.state === 'acked');
      const report: RoundReport = {
        round,
        fired: load.fired.length,
        firedByKind: byKind(load.fired),
        acked: ackedOnes.length,
        ackedByKind: byKind(ackedOnes),
        inFlightAtKill: load.inFlightAtKill,
        unanswered: load.fired.filter((f) => f.state === 'unanswered').length,
        checks,
        ms: { seed: t1 - t0, load: t2 - t1, restart: t3 - t2, check: t4 - t3 },
      };
      reports.push(report);
      options.onRound?.(report);
    }
    return reports;
  } finally {
    if (server) await killHard(server);
    await store.remove();
  }
}
