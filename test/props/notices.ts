import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ChangeKind } from '../../src/model/change-event.ts';
import { type Claim, qualifiedKey } from '../../src/model/claim.ts';
import type { ResolutionContext } from '../../src/model/context-modifier.ts';
import type { GrantCaller } from '../../src/operations/callers/token-caller.ts';
import {
  type GrantWatch,
  type Ticker,
  type WatchedView,
  watchGrant,
} from '../../src/operations/grants/watch-grant.ts';
import type { ChangeSubscription } from '../../src/store/change-feed.ts';
import { api, type TestProvider } from '../support/provider.ts';
import { proposed } from '../support/writeback.ts';
import { type Case, type ClaimDraft, claimDraft, type GrantDraftCase, grantDraft, POOL } from './case.ts';
import { claimOf, grantKeys, nameCase, outsideGrant, type Pair, setUp, type World } from './world.ts';

// Indistinguishability of change notices (watch-grant.ts) as a property: for a random grant, a
// random profile and a random sequence of the person's own changes (claims written and deleted,
// some the grant may see and some it may not; a proposal of the grantee's decided; the grant
// revoked), a watch over the grant's summary, an effective view and the proposal is stepped by
// hand in two providers that differ only in the claims the grant cannot see. The steps that only
// touch such claims happen in the "hidden" provider only. Then
//   1. the notices, tick by tick, are the same in both (which views, which ends, at which tick);
//   2. a step that touched only hidden claims gives no notice in either;
//   3. a step that touched what the grant sees gives a notice (for the summary, the proposal, or
//      the end), so the property cannot hold by a watch that never says anything;
//   4. watching writes no audit entry.
// What a grant may see is world.ts#outsideGrant's (the spec's rules, apart from src/policy).

/** A change by the person; `pool` names the key (case.ts#POOL), one claim per key. */
export type NoticeStep =
  /** `aim`: `pool` picks among the keys the grant names (visible unless the draft hides it). */
  | { readonly kind: 'write'; readonly pool: number; readonly aim: boolean; readonly draft: ClaimDraft }
  | { readonly kind: 'delete'; readonly pick: number }
  /** The person decides the grantee's proposal (a no-op without one, or once decided). */
  | { readonly kind: 'decide'; readonly confirm: boolean };

export interface NoticeCase {
  readonly claims: readonly ClaimDraft[];
  readonly grant: GrantDraftCase;
  /** Index into CONTEXTS: the effective view's context. */
  readonly context: number;
  /** Whether the grantee proposes (before the watch opens) a claim of a key the profile lacks. */
  readonly propose: boolean;
  readonly steps: readonly NoticeStep[];
  /** Whether the person revokes the grant as the last step. */
  readonly revoke: boolean;
}

const CONTEXTS: readonly ResolutionContext[] = [
  {},
  { occasion: 'date_night', climate: 'hot_humid' },
  { occasion: 'office' },
  { climate: 'cold_dry' },
] as ResolutionContext[];

const noticeStep: fc.Arbitrary<NoticeStep> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      pool: fc.nat(POOL.length - 1),
      aim: fc.boolean(),
      draft: claimDraft,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('decide' as const), confirm: fc.boolean() }) },
);

const withOperation = (g: GrantDraftCase, op: string) =>
  g.operations.includes(op) ? g : { ...g, operations: [...g.operations, op] };

export const noticeCaseArbitrary: fc.Arbitrary<NoticeCase> = fc
  .record({
    claims: fc.uniqueArray(claimDraft, { minLength: 1, maxLength: 10, selector: (c) => c.pool }),
    grant: grantDraft,
    /** Below 8: the grant reads (one that does not shows no view, so it gives no notice at all). */
    reads: fc.nat(9),
    context: fc.nat(CONTEXTS.length - 1),
    propose: fc.boolean(),
    steps: fc.array(noticeStep, { minLength: 1, maxLength: 8 }),
    revoke: fc.boolean(),
  })
  .map(({ reads, ...c }) => {
    let grant = reads < 8 ? withOperation(c.grant, 'read') : c.grant;
    // A grantee that proposes may (its grant's write-back policy may still refuse it).
    if (c.propose) grant = withOperation(grant, 'propose_update');
    return { ...c, grant };
  });

export interface NoticeStats {
  cases: number;
  refusedGrants: number;
  /** Cases whose grant reads (active, with `read`): where visible steps must give notices. */
  readable: number;
  proposals: number;
  steps: number;
  hiddenOnly: number;
  visible: number;
  noops: number;
  ticks: number;
  notices: number;
  ended: number;
}

export function emptyNoticeStats(): NoticeStats {
  return {
    cases: 0,
    refusedGrants: 0,
    readable: 0,
    proposals: 0,
    steps: 0,
    hiddenOnly: 0,
    visible: 0,
    noops: 0,
    ticks: 0,
    notices: 0,
    ended: 0,
  };
}

/** Numbers every run of a case in this process, apart from redaction.ts's (same subject names). */
let n = 500_000;

type Notice = GrantWatch extends AsyncIterable<infer T> ? T : never;

/** One provider's side of a case: its world, its model of the claims by key, its watch. */
interface Side {
  readonly w: World;
  /** The claim of each pool entry's key, as the person last wrote it (none: no claim). */
  readonly claims: Map<number, Claim>;
  proposalId?: string;
  watch?: GrantWatch;
  tick?: () => Promise<void>;
  readonly got: Notice[];
  /** Per tick, the notices received at it (ids and ends). */
  readonly trace: string[][];
  consumer?: Promise<void>;
  feed?: ChangeSubscription;
  readonly seen: ChangeKind[];
}

/** Lets every pending delivery (feed to watch, watch to its reader) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}

async function auditCount(p: TestProvider, subject: string): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await p.deps.store.listAudit({
      subject_id: subject,
      limit: 500,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    count += page.events.length;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return count;
}

/** Follows the subject's own change events, to know when a step's has been delivered. */
function follow(s: Side): void {
  const feed = s.w.p.deps.changes.subscribe({ subjectId: s.w.named.subject });
  s.feed = feed;
  void (async () => {
    for await (const e of feed) s.seen.push(e.kind);
  })();
}

async function delivered(s: Side, kind: ChangeKind): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!s.seen.includes(kind)) {
    assert.ok(Date.now() < deadline, `no ${kind} event delivered`);
    await new Promise((r) => setTimeout(r, 1));
  }
  s.seen.length = 0;
  await settle();
}

/** Ticks the watch once; records what it sent at that tick. */
async function tickOnce(s: Side): Promise<void> {
  await s.tick?.();
  await settle();
  s.trace.push(s.got.splice(0).map((x) => (x.kind === 'changed' ? `changed ${x.id}` : `ended ${x.reason}`)));
}

/** A value of the key's type unlike any stored one: the write is an update, not a confirmation. */
function freshValue(
  base: Omit<Claim, 'claim_id'>,
  i: number,
  stored: readonly (Claim | undefined)[] = [],
): unknown {
  const v = base.value;
  if (typeof v === 'string') {
    // travel.accommodation_style, the only string key, takes one of these.
    const styles = ['hostel', 'boutique', 'business', 'luxury', 'homestay', 'rental'];
    const free = styles.filter((x) => !stored.some((c) => c?.value === x));
    return free[i % free.length];
  }
  if (typeof v === 'number') return Number.isInteger(v) ? 100 + i : Number((0.013 + 0.01 * i).toFixed(3));
  if (Array.isArray(v)) return [`note_${i}`];
  if (v !== null && typeof v === 'object') return { woody: Number((0.013 + 0.01 * i).toFixed(3)) };
  return v;
}

async function subjectCall(s: Side, path: string, body: unknown, method?: string): Promise<void> {
  const r = await api(s.w.p.url, path, {
    token: s.w.subjectToken,
    ...(body !== undefined ? { body } : {}),
    ...(method !== undefined ? { method } : {}),
  });
  assert.ok(r.status === 200, `${method ?? 'POST'} ${path}: ${r.status} ${r.text}`);
}

async function storedId(s: Side, pool: number): Promise<string> {
  const key = qualifiedKey(POOL[pool] as Claim);
  const claims = await s.w.p.deps.store.listClaims(s.w.named.profileId);
  const found = claims.filter((c) => qualifiedKey(c) === key);
  assert.equal(found.length, 1, `one claim of ${key}`);
  return (found[0] as Claim).claim_id;
}

/** The key the grantee proposes: one its grant names that the profile has no claim of. */
function proposalPool(c: NoticeCase): number | undefined {
  const keys = grantKeys(c.grant);
  const taken = new Set(c.claims.map((d) => d.pool));
  return POOL.map((_, i) => i).find((i) => {
    const claim = POOL[i] as Claim;
    if (taken.has(i) || !c.grant.namespaces.includes(claim.namespace)) return false;
    return keys === undefined || keys.includes(qualifiedKey(claim));
  });
}

async function openWatch(s: Side, views: WatchedView[]): Promise<void> {
  // The grant as stored now, as a surface's caller has it (issuing a single-use grant's token
  // moved its expiry: a watch opened on the grant as created would end as narrowed).
  const grant = s.w.grant && (await s.w.p.deps.store.getGrant(s.w.grant.grant_id));
  assert.ok(grant);
  const caller: GrantCaller = { kind: 'grant', clientId: grant.grantee_id, grant };
  // The test is the clock: it keeps the tick and calls it when it will.
  const ticker: Ticker = (tick) => {
    s.tick = tick;
    return () => undefined;
  };
  s.watch = await watchGrant(s.w.p.deps, caller, views, { ticker });
  const watch = s.watch;
  s.consumer = (async () => {
    for await (const x of watch) s.got.push(x);
  })();
}

/** One case, in both providers. */
async function runCase(pair: Pair, c: NoticeCase, n: number, stats: NoticeStats): Promise<void> {
  const base: Case = { claims: c.claims, grant: c.grant, second: null, steps: [], revokeOn: null };
  const named = nameCase(base, n);
  const sides: [Side, Side] = [
    {
      w: await setUp(pair.hidden, base, named, true, pair.now),
      claims: new Map(),
      got: [],
      trace: [],
      seen: [],
    },
    {
      w: await setUp(pair.absent, base, named, false, pair.now),
      claims: new Map(),
      got: [],
      trace: [],
      seen: [],
    },
  ];
  const [hidden, absent] = sides;
  stats.cases++;
  if (hidden.w.grant === undefined || absent.w.grant === undefined) {
    assert.equal(hidden.w.refusal, absent.w.refusal, 'the grant is refused alike in both');
    stats.refusedGrants++;
    return;
  }
  for (const [i, d] of c.claims.entries()) {
    const claim = named.claims[i] as Claim;
    hidden.claims.set(d.pool, claim);
    if (!named.hidden.includes(claim.claim_id)) absent.claims.set(d.pool, claim);
  }
  const seen = (x: Claim | undefined) => x !== undefined && !outsideGrant(c.grant, x);
  const readable = c.grant.expiresInDays > 0 && c.grant.operations.includes('read');
  if (readable) stats.readable++;

  // The grantee's proposal, made before the watch opens, of a key no step touches.
  const pool = c.propose ? proposalPool(c) : undefined;
  if (pool !== undefined) {
    const claim = POOL[pool] as Claim;
    const input = {
      claims: [
        proposed(claim.namespace, claim.key, freshValue(claim, 0), {
          ...(claim.value_type !== undefined ? { value_type: claim.value_type } : {}),
          // As the person's own words: queued for them under every policy that writes.
          source: { kind: 'user_stated' },
        }),
      ],
    };
    const answers = await Promise.all(
      sides.map((s) =>
        api(s.w.p.url, '/v1/profile/propose-updates', { token: s.w.tokens.http, body: input }),
      ),
    );
    assert.equal(answers[0]?.status, answers[1]?.status, 'a proposal is answered alike');
    for (const [i, a] of answers.entries()) {
      const p = (a.json?.proposals as { proposal_id: string; status: string }[] | undefined)?.[0];
      if (p?.status === 'pending') (sides[i] as Side).proposalId = p.proposal_id;
    }
    assert.equal(hidden.proposalId === undefined, absent.proposalId === undefined, 'queued alike');
    if (hidden.proposalId !== undefined) stats.proposals++;
  }

  const views = (s: Side): WatchedView[] => [
    { id: 'summary', view: 'summary' },
    { id: 'effective', view: 'effective', context: CONTEXTS[c.context] as ResolutionContext },
    ...(s.proposalId !== undefined
      ? [{ id: 'proposal', view: 'proposal' as const, proposalId: s.proposalId }]
      : []),
  ];
  try {
    for (const s of sides) {
      follow(s);
      await openWatch(s, views(s));
    }
    const ticks = async (label: string) => {
      for (let t = 0; t < 2; t++) for (const s of sides) await tickOnce(s);
      stats.ticks += 2;
      const [a, b] = [hidden.trace.slice(-2), absent.trace.slice(-2)];
      assert.deepEqual(a, b, `${label}: the notices tell the providers apart (hidden, then absent)`);
      stats.notices += a.flat().length;
      return a;
    };
    // Nothing happened yet: nothing to tell (but the end of an expired grant).
    const first = await ticks('opening');
    assert.deepEqual(
      first.flat().filter((x) => x.startsWith('changed')),
      [],
      'no notice before any change',
    );

    const steps: (NoticeStep | { kind: 'revoke' })[] = [
      ...c.steps,
      ...(c.revoke ? [{ kind: 'revoke' as const }] : []),
    ];
    let decided = false;
    for (const [i, step] of steps.entries()) {
      stats.steps++;
      const label = `step ${i} (${step.kind})`;
      /** Which views must change; undefined: the step touched only hidden claims (or nothing). */
      let expect: string[] | undefined;
      let onlyHidden = false;
      if (step.kind === 'write') {
        // Never the proposal's key: a confirmed proposal writes it.
        const named = grantKeys(c.grant);
        const aimed = POOL.map((_, k) => k).filter((k) => {
          const x = POOL[k] as Claim;
          return c.grant.namespaces.includes(x.namespace) && (named?.includes(qualifiedKey(x)) ?? true);
        });
        const picked = step.aim && aimed.length > 0 ? (aimed[step.pool % aimed.length] as number) : step.pool;
        const at = picked === pool ? (picked + 1) % POOL.length : picked;
        const claim = claimOf({ ...step.draft, pool: at }, 'ppx:claim:new');
        const before = hidden.claims.get(at);
        const touches = seen(claim) || seen(before);
        const { claim_id: _id, ...rest } = claim;
        const value = freshValue(claim, i, [before, absent.claims.get(at)]);
        for (const s of touches ? sides : [hidden]) {
          await subjectCall(s, '/v1/profile/propose-updates', { claims: [{ ...rest, value }] });
          await delivered(s, 'claims_written');
          s.claims.set(at, { ...claim, value } as Claim);
        }
        onlyHidden = !touches;
        if (touches) expect = ['summary'];
      } else if (step.kind === 'delete') {
        const keys = [...hidden.claims.keys()].filter((k) => k !== pool);
        const at = keys[step.pick % Math.max(1, keys.length)];
        if (at === undefined) {
          stats.noops++;
        } else {
          const touches = seen(hidden.claims.get(at));
          if (touches) assert.ok(absent.claims.has(at), 'a claim the grant sees is in both');
          for (const s of touches ? sides : [hidden]) {
            const id = await storedId(s, at);
            await subjectCall(s, `/v1/profile/claims/${encodeURIComponent(id)}`, undefined, 'DELETE');
            await delivered(s, 'claims_deleted');
            s.claims.delete(at);
          }
          onlyHidden = !touches;
          if (touches) expect = ['summary'];
        }
      } else if (step.kind === 'decide') {
        if (hidden.proposalId === undefined || decided) {
          stats.noops++;
        } else {
          decided = true;
          for (const s of sides) {
            const decisions = [{ proposal_id: s.proposalId, action: step.confirm ? 'confirm' : 'reject' }];
            await subjectCall(s, '/v1/profile/confirm-updates', { decisions });
            await delivered(s, 'proposal_decided');
          }
          expect = ['proposal'];
        }
      } else {
        for (const s of sides) {
          await subjectCall(s, '/v1/consent/revoke', { grant_id: s.w.grant?.grant_id });
          await delivered(s, 'grant_revoked');
        }
        expect = ['ended revoked'];
      }
      if (onlyHidden) stats.hiddenOnly++;
      else if (expect !== undefined) stats.visible++;
      const before = await Promise.all(sides.map((s) => auditCount(s.w.p, named.subject)));
      const [atFirst, atSecond] = await ticks(label);
      const after = await Promise.all(sides.map((s) => auditCount(s.w.p, named.subject)));
      assert.deepEqual(after, before, `${label}: watching writes no audit entry`);
      const ended = first.flat().some((x) => x.startsWith('ended'));
      if (onlyHidden) {
        assert.deepEqual(
          [atFirst, atSecond],
          [[], []],
          `${label}: a change to hidden claims gives no notice`,
        );
      } else if (expect !== undefined && readable && !ended) {
        // What a tick finds goes out at the next one.
        assert.deepEqual(atFirst, [], `${label}: nothing goes out at the tick that reads`);
        for (const e of expect) {
          const wanted = e.startsWith('ended') ? e : `changed ${e}`;
          assert.ok(atSecond?.includes(wanted), `${label}: ${wanted} at the next tick (got ${atSecond})`);
        }
      }
      if (step.kind === 'revoke' || ended) break;
    }
    for (const [i, s] of sides.entries()) {
      if (s.trace.flat().some((x) => x.startsWith('ended'))) {
        if (i === 0) stats.ended++;
      }
    }
  } finally {
    for (const s of sides) {
      s.watch?.close();
      s.feed?.close();
      await s.consumer;
    }
  }
}

/**
 * Checks the property on `numRuns` random cases. A failure throws fast-check's report: the
 * shrunk counterexample, the seed and the path to replay it (`seed`, `path`).
 */
export async function checkNotices(
  pair: Pair,
  options: {
    numRuns: number;
    seed?: number;
    path?: string;
    stats?: NoticeStats;
    onCase?: (s: NoticeStats) => void;
  },
): Promise<NoticeStats> {
  const stats = options.stats ?? emptyNoticeStats();
  await fc.assert(
    fc.asyncProperty(noticeCaseArbitrary, async (c) => {
      // Each run of a case (shrinking runs them again) has a subject and claim ids of its own.
      await runCase(pair, c, ++n, stats);
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
