import assert from 'node:assert/strict';
import fc from 'fast-check';
import { oneShot } from '../support/agui-client.ts';
import { comparableRun } from '../support/compare.ts';
import { type Answer, runStep } from './calls.ts';
import { type Case, caseArbitrary, type Step } from './case.ts';
import { nameCase, type Pair, setUp, type World } from './world.ts';

// The redaction invariant as a property (issue 15): for a random profile, a random grant and a
// random sequence of calls on HTTP, MCP and A2A (and the AG-UI review stream), run in two
// providers that differ only in the claims the grant cannot see,
//   1. every claim an answer names is one the grant may see (world.ts#outsideGrant says which
//      it may not, from the spec's rules and apart from src/policy);
//   2. nothing of another subject appears (other cases' subjects, the demo subject, the second
//      subject), not even in the person's own AG-UI review state;
//   3. indistinguishability: every answer (status, headers, body: ids, times, counts, error texts,
//      write-back outcomes) is the same in both providers, the ids each minted set side by side
//      (test/support/compare.ts).

export interface Stats {
  cases: number;
  steps: number;
  /** Cases whose grant was refused at creation (both providers alike): no calls. */
  refusedGrants: number;
  /** Cases with at least one claim present in one provider only. */
  withHidden: number;
  hiddenClaims: number;
  readonly bySurface: Record<string, number>;
  readonly byStatus: Record<string, number>;
}

export function emptyStats(): Stats {
  return {
    cases: 0,
    steps: 0,
    refusedGrants: 0,
    withHidden: 0,
    hiddenClaims: 0,
    bySurface: {},
    byStatus: {},
  };
}

const HOUR = 3_600_000;
/** Numbers every run of a case in this process: its subject and claim ids. */
let n = 0;
const CLAIM_ID = /ppx:claim:(?:r(\d+)-\d+|demo-[a-z-]+|compat-[a-z_-]+)/g;

/** A call the server refused: an id it names may be the one the call itself sent. */
function refused(a: Answer): boolean {
  const body = a.body as { error?: unknown; result?: { isError?: boolean } } | undefined;
  return a.status >= 400 || body?.error !== undefined || body?.result?.isError === true;
}

/** The ids of claims the answers name that the grant may not show: none may appear. */
function leaks(answers: readonly Answer[], w: World): string[] {
  const found: string[] = [];
  for (const a of answers) {
    if (a.bySubject) continue;
    for (const m of a.text.matchAll(CLAIM_ID)) {
      const id = m[0];
      const ownCase = m[1] !== undefined && Number(m[1]) === w.named.n;
      if (ownCase && !w.named.outside.has(id)) continue;
      if (refused(a) && JSON.stringify(a.input).includes(id)) continue;
      found.push(`${a.call} names ${id}${ownCase ? ' (outside the grant)' : ' (another subject)'}`);
    }
  }
  return found;
}

/** Every claim id the subject's own review state names is the subject's. */
async function subjectSeesOwnOnly(w: World): Promise<void> {
  const { state } = await oneShot(w.p, w.subjectToken);
  const text = JSON.stringify(state);
  for (const m of text.matchAll(CLAIM_ID)) {
    assert.ok(m[1] !== undefined && Number(m[1]) === w.named.n, `the subject's AG-UI state names ${m[0]}`);
  }
}

function comparable(run: readonly Answer[], base: string): unknown[] {
  return comparableRun(
    run.map(({ call, status, headers, body }) =>
      JSON.parse(JSON.stringify({ call, status, headers, body }).replaceAll(base, '<base>')),
    ),
  );
}

/** One case, once: false when an hour boundary fell inside it (times of change are per hour). */
async function runCase(pair: Pair, c: Case, n: number, stats: Stats): Promise<boolean> {
  const hour = Math.floor(Date.now() / HOUR);
  const named = nameCase(c, n);
  const hidden = await setUp(pair.hidden, c, named, true, pair.now);
  const absent = await setUp(pair.absent, c, named, false, pair.now);
  stats.cases++;
  if (named.hidden.length > 0) stats.withHidden++;
  stats.hiddenClaims += named.hidden.length;
  if (hidden.grant === undefined || absent.grant === undefined) {
    assert.equal(hidden.refusal, absent.refusal, 'the grant is refused alike in both');
    stats.refusedGrants++;
    return true;
  }
  const answers: [Answer[], Answer[]] = [[], []];
  const revoke: Step[] = c.revokeOn
    ? [
        { op: 'revoke_consent_grant', surface: c.revokeOn, variant: 0, keys: [], value: 0 },
        { op: 'get_effective_profile', surface: c.revokeOn, variant: 0, keys: [], value: 0 },
      ]
    : [];
  for (const [i, s] of [...c.steps, ...revoke].entries()) {
    answers[0].push(await runStep(s, hidden, i));
    answers[1].push(await runStep(s, absent, i));
    stats.steps++;
    stats.bySurface[s.surface] = (stats.bySurface[s.surface] ?? 0) + 1;
    const status = String(answers[0].at(-1)?.status);
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
  }
  await subjectSeesOwnOnly(hidden);
  assert.deepEqual(leaks(answers[0], hidden), [], 'no answer names a claim the grant may not see');
  const grantees = (run: Answer[]) => run.filter((x) => !x.bySubject);
  const [a, b] = [
    comparable(grantees(answers[0]), hidden.p.url),
    comparable(grantees(answers[1]), absent.p.url),
  ];
  if (Math.floor(Date.now() / HOUR) !== hour) return false;
  for (const [i, x] of a.entries()) {
    assert.deepEqual(x, b[i], `answer ${i} (${(x as { call: string }).call}) tells the hidden claims apart`);
  }
  return true;
}

/**
 * Checks the property on `numRuns` random cases. A failure throws fast-check's report: the
 * shrunk counterexample, the seed and the path to replay it (`seed`, `path`).
 */
export async function checkRedaction(
  pair: Pair,
  options: { numRuns: number; seed?: number; path?: string; stats?: Stats; onCase?: (s: Stats) => void },
): Promise<Stats> {
  const stats = options.stats ?? emptyStats();
  await fc.assert(
    fc.asyncProperty(caseArbitrary, async (c) => {
      // Each run of a case (shrinking runs them again) has a subject and claim ids of its own.
      for (let attempt = 0; !(await runCase(pair, c, ++n, stats)); attempt++) {
        assert.ok(attempt < 2, 'two hour boundaries in one case');
      }
      options.onCase?.(stats);
    }),
    {
      numRuns: options.numRuns,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
      endOnFailure: false,
    },
  );
  return stats;
}
