import { createHash } from 'node:crypto';
import type { Claim } from '../../model/claim.ts';
import type { ResolutionContext } from '../../model/context-modifier.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import { evaluateAccess } from '../../policy/scope.ts';
import { decideTransfer, planTransfer } from '../../policy/trait-mapping.ts';
import { visibleClaims } from '../../policy/visibility.ts';
import { resolveEffectiveProfile } from '../../resolve/effective.ts';
import { ChangeFeedOverflow, type ChangeSubscription } from '../../store/change-feed.ts';
import type { GrantCaller } from '../callers/token-caller.ts';
import type { Deps } from '../deps.ts';

// A grantee's watch over what its grant reads (issue 25 item 2, docs/subscriptions.md): the
// notices behind MCP's `subscriptions/listen` and 2025-11-25's resource subscriptions.
//
// A notice must say nothing about claims outside the grant, not even by its timing. So:
// - Change events only mark the watch dirty. Which events name a grant is a superset of what it
//   sees (operations/changes.ts), so an event is never itself the notice.
// - A dirty watch reads, at the next tick of a clock-aligned grid, a stamp of each view: a hash
//   of exactly what the grant reads there (its visible claims, the modifiers that apply to them,
//   the cross-domain decision), never of what it cannot. A change outside the grant leaves every
//   stamp as it was, so it gives no notice.
// - A notice found at one tick is sent at the next one: when it arrives depends on the grid and
//   on when the visible change committed, not on how long the reading took (a hidden change
//   makes the reading happen, but it shows no more than an idle tick).
// - Stamps are read as of a fixed instant (REFERENCE), not now: decay and expiry move with the
//   clock, and a reading caused by a hidden change must not reveal a visible one the clock made.
//   A claim that decays or expires is not a change; the grantee reads again for those.
// - Nothing is audited: a watch reads nothing out; the grantee's later read is the audited one.
//
// The grant itself is read again whenever the watch is dirty: revoked, expired or narrowed
// (anything of its scope changed; grants are never widened in place) ends the watch.

/**
 * What one watched resource shows: the grant's summary, or its effective profile in a context.
 * `id` names it to the watcher (an MCP resource URI); notices say which view by it.
 */
export type WatchedView = { readonly id: string } & (
  | { readonly view: 'summary' }
  | { readonly view: 'effective'; readonly context: ResolutionContext }
  | { readonly view: 'proposal'; readonly proposalId: string }
);

/** Why a watch ended. `ended`: its token expired, or it was closed. */
type WatchEnd = 'revoked' | 'narrowed' | 'expired' | 'ended';

type WatchNotice =
  | { readonly kind: 'changed'; readonly id: string }
  | { readonly kind: 'ended'; readonly reason: WatchEnd };

export interface GrantWatch extends AsyncIterable<WatchNotice> {
  /**
   * Replaces the watched views; a view new to the watch (by id) is stamped now and gives no
   * notice for what came before.
   */
  setViews(views: readonly WatchedView[]): Promise<void>;
  /** Ends the watch; the iterator finishes without an `ended` notice. Idempotent. */
  close(): void;
}

export interface WatchOptions {
  /** The tick of the grid, in ms (default 250). */
  readonly tickMs?: number;
  /** What moves the watch on (default: the grid of `tickMs`); a test steps it by hand. */
  readonly ticker?: Ticker;
  /** When the token the watch was opened with expires: the watch ends then. */
  readonly tokenExpiresAt?: Date;
}

const DEFAULT_TICK_MS = 250;

/** Calls `tick` at each tick until the returned function is called. */
export type Ticker = (tick: () => Promise<void>) => () => void;

/**
 * Ticks on a grid of multiples of `ms` since the epoch, so every watch of every instance shares
 * it: when a notice goes out depends on the grid, not on when its watch was opened.
 */
function gridTicker(ms: number): Ticker {
  return (tick) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const next = () => {
      if (stopped) return;
      timer = setTimeout(
        () => {
          void tick();
          next();
        },
        ms - (Date.now() % ms),
      );
      timer.unref?.();
    };
    next();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  };
}

/** Stamps are read as of this instant (see above): nothing has decayed or expired at it. */
const REFERENCE = new Date(0);

/**
 * Opens a watch for `caller`'s grant over `views`. The first stamps are read before this
 * resolves, so a change committed after it gives a notice.
 */
export async function watchGrant(
  deps: Deps,
  caller: GrantCaller,
  views: readonly WatchedView[],
  options: WatchOptions = {},
): Promise<GrantWatch> {
  const watch = new Watch(
    deps,
    caller.grant,
    options.ticker ?? gridTicker(options.tickMs ?? DEFAULT_TICK_MS),
  );
  await watch.start(views, options.tokenExpiresAt);
  return watch;
}

class Watch implements GrantWatch {
  readonly #deps: Deps;
  readonly #grant: GrantRecord;
  readonly #scopeKey: string;
  readonly #ticker: Ticker;
  #views: readonly WatchedView[] = [];
  #stamps: string[] = [];
  #dirty = false;
  #reading = false;
  /** Found at the last tick; sent at the next. */
  #found: WatchNotice[] = [];
  #queue: WatchNotice[] = [];
  #wake: (() => void) | undefined;
  #done = false;
  #endAt: { at: number; reason: WatchEnd } | undefined;
  #subscription: ChangeSubscription | undefined;
  #stopTicks: (() => void) | undefined;

  constructor(deps: Deps, grant: GrantRecord, ticker: Ticker) {
    this.#deps = deps;
    this.#grant = grant;
    this.#scopeKey = scopeKey(grant);
    this.#ticker = ticker;
  }

  async start(views: readonly WatchedView[], tokenExpiresAt: Date | undefined): Promise<void> {
    this.#follow();
    const ends = [
      this.#grant.expires_at === undefined
        ? undefined
        : { at: Date.parse(this.#grant.expires_at), reason: 'expired' as const },
      tokenExpiresAt === undefined ? undefined : { at: tokenExpiresAt.getTime(), reason: 'ended' as const },
    ].filter((e) => e !== undefined && !Number.isNaN(e.at));
    this.#endAt = ends.sort((a, b) => (a?.at ?? 0) - (b?.at ?? 0))[0];
    await this.setViews(views);
    if (!this.#done) this.#stopTicks = this.#ticker(() => this.#tick());
  }

  async setViews(views: readonly WatchedView[]): Promise<void> {
    const old = new Map(this.#views.map((v, i) => [v.id, this.#stamps[i]]));
    const fresh = await readStamps(this.#deps, this.#grant, views);
    this.#views = views;
    // A view already watched keeps its stamp (a change it has not been told of yet stays news).
    this.#stamps = views.map((v, i) => old.get(v.id) ?? (fresh[i] as string));
  }

  close(): void {
    if (this.#done) return;
    this.#finish();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchNotice> {
    while (true) {
      const next = this.#queue.shift();
      if (next !== undefined) {
        yield next;
        if (next.kind === 'ended') return;
        continue;
      }
      if (this.#done) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  /** Marks the watch dirty on every change event that names the grant, across overflows. */
  #follow(fromSeq?: number): void {
    const subscription = this.#deps.changes.subscribe(
      { subjectId: this.#grant.subject_id, grantIds: [this.#grant.grant_id] },
      fromSeq === undefined ? {} : { fromSeq },
    );
    this.#subscription = subscription;
    void (async () => {
      try {
        for await (const _event of subscription) this.#dirty = true;
      } catch (error) {
        if (!(error instanceof ChangeFeedOverflow) || this.#done) return;
        this.#dirty = true;
        this.#follow(error.lastSeq);
      }
    })();
  }

  /** One tick: sends what the last one found, then reads if anything changed; settles when read. */
  async #tick(): Promise<void> {
    if (this.#done) return;
    // What the last tick found goes out now.
    if (this.#found.length > 0) {
      this.#queue.push(...this.#found);
      this.#found = [];
      this.#wake?.();
      if (this.#queue.some((n) => n.kind === 'ended')) {
        this.#finish();
        return;
      }
    }
    if (this.#endAt !== undefined && Date.now() >= this.#endAt.at) {
      this.#found.push({ kind: 'ended', reason: this.#endAt.reason });
    } else if (this.#dirty && !this.#reading) {
      this.#dirty = false;
      this.#reading = true;
      try {
        await this.#read();
      } finally {
        this.#reading = false;
      }
    }
  }

  async #read(): Promise<void> {
    let found: WatchNotice[];
    try {
      found = await this.#compare();
    } catch {
      // A store that fails now is read again on the next change; the watch goes on.
      this.#dirty = true;
      return;
    }
    this.#found.push(...found);
  }

  async #compare(): Promise<WatchNotice[]> {
    const stored = await this.#deps.store.getGrant(this.#grant.grant_id);
    const end = endOf(this.#grant, this.#scopeKey, stored, new Date());
    if (end !== undefined) return [{ kind: 'ended', reason: end }];
    const views = this.#views;
    const stamps = await readStamps(this.#deps, this.#grant, views);
    if (views !== this.#views) {
      // Replaced meanwhile (the new views were stamped then): read again at the next tick.
      this.#dirty = true;
      return [];
    }
    const found: WatchNotice[] = [];
    stamps.forEach((stamp, view) => {
      if (stamp !== this.#stamps[view]) found.push({ kind: 'changed', id: (views[view] as WatchedView).id });
    });
    this.#stamps = stamps;
    return found;
  }

  #finish(): void {
    this.#done = true;
    this.#subscription?.close();
    this.#stopTicks?.();
    this.#wake?.();
  }
}

/** Why the grant as stored now ends a watch opened under `opened`, if it does. */
function endOf(
  opened: GrantRecord,
  openedKey: string,
  stored: GrantRecord | undefined,
  now: Date,
): WatchEnd | undefined {
  if (stored === undefined) return 'revoked';
  const status = grantStatusAt(stored, now);
  if (status === 'revoked') return 'revoked';
  if (status === 'expired') return 'expired';
  if (status !== 'active') return 'ended';
  return scopeKey(stored) === openedKey && stored.grantee_id === opened.grantee_id ? undefined : 'narrowed';
}

/** Everything of a grant but its status: any change to it is a narrowing (grants never widen). */
function scopeKey(grant: GrantRecord): string {
  const { status: _status, ...rest } = grant;
  return JSON.stringify(rest);
}

/**
 * A stamp per view of what the grant reads there, as of REFERENCE: its claims, or the state of
 * one of its own proposals.
 */
async function readStamps(deps: Deps, grant: GrantRecord, views: readonly WatchedView[]): Promise<string[]> {
  const claims = views.some((v) => v.view !== 'proposal') ? await claimStamps(deps, grant) : undefined;
  const stamps: string[] = [];
  for (const view of views) {
    if (view.view === 'proposal') stamps.push(await proposalStamp(deps, grant, view.proposalId));
    else stamps.push(claims?.(view) ?? UNREADABLE);
  }
  return stamps;
}

/** The stamp of a view the grant cannot read (its operations allow no read): it says nothing. */
const UNREADABLE = 'unreadable';

async function proposalStamp(deps: Deps, grant: GrantRecord, proposalId: string): Promise<string> {
  const p = await deps.store.getProposal(proposalId);
  if (p === undefined || p.grant_id !== grant.grant_id) return 'none';
  return `${p.status} ${p.decided_at ?? ''}`;
}

/** What the grant reads of the profile, as a stamp per claims view; undefined when it reads nothing. */
async function claimStamps(
  deps: Deps,
  grant: GrantRecord,
): Promise<((view: WatchedView) => string) | undefined> {
  const scope = evaluateAccess(grant, { operation: 'read' }, new Date());
  if (!scope.ok) return undefined;
  const content = await deps.store.getProfileContent(grant.profile_id);
  const claims = content?.claims ?? [];
  let visible: readonly Claim[] = visibleClaims(scope.value, claims);
  let review: unknown;
  if (scope.value.crossDomain === 'allow_with_review') {
    // Read-only: the grantee's own read asks for a review; a watch never creates one.
    const plan = planTransfer(scope.value, claims, REFERENCE);
    const decision = decideTransfer(plan, await deps.store.listCrossDomainReviewsByGrant(grant.grant_id));
    visible = [...visible, ...decision.include];
    review = decision.notice;
  }
  const modifiers = content?.modifiers ?? [];
  return (view) => {
    const shown =
      view.view === 'effective'
        ? resolveEffectiveProfile({ claims: visible, modifiers, context: view.context, now: REFERENCE })
        : visible;
    return createHash('sha256')
      .update(JSON.stringify([shown, review ?? null]))
      .digest('base64url');
  };
}
