import jsonPatch, { type Operation } from 'fast-json-patch';
import { fail, ok, type Result } from '../../model/errors.ts';
import { ChangeFeedOverflow, type ChangeSubscription } from '../../store/change-feed.ts';
import type { Caller } from '../callers/caller.ts';
import { announceIfExpired, followChanges } from '../changes.ts';
import type { Deps } from '../deps.ts';
import { type InboxState, loadInboxState } from './inbox-state.ts';

// The person's inbox, followed (WIRE-NOTES §7): a first state (a snapshot, or a patch from the
// state a reconnecting client holds), then one patch for every change event of the person's
// profile, relative to the last state sent. Each patch is the difference between two whole
// states (RFC 6902, fast-json-patch's compare), so a client that applies every patch holds
// exactly the state a fresh snapshot shows, whatever the events were. The AG-UI surface turns
// these updates into events; nothing here knows AG-UI.

/** An RFC 6902 operation, as compare() makes them (fast-json-patch's `_get` is internal to it). */
type PatchOperation = Exclude<Operation, { op: '_get' }>;

export type InboxUpdate =
  | { readonly kind: 'snapshot'; readonly state: InboxState }
  | { readonly kind: 'delta'; readonly delta: PatchOperation[]; readonly state: InboxState };

export interface InboxOptions {
  /** False: the first update only (a one-shot run). */
  readonly follow: boolean;
  /** The seq of the state the client holds (`forwardedProps.since`). */
  readonly since?: number;
  /** The state the client holds (AG-UI `RunAgentInput.state`), the base of a resume's patch. */
  readonly held?: unknown;
}

/**
 * The updates of one inbox run, in order. Iterate it once; it ends after the first update when
 * not following, else when `close()` is called (a pending `next()` then finishes).
 */
export interface InboxRun extends AsyncIterable<InboxUpdate> {
  /** False when a resuming client's state is already current: the first update is a change. */
  readonly startsWithUpdate: boolean;
  close(): void;
  /**
   * Announces the expiry of any grant of the last state sent that is past it now. An expiry is
   * a matter of time, not a write: it is announced when something finds it (changes.ts), and a
   * following stream looks now and then, so that the person sees it without anyone reading.
   */
  checkExpiries(): Promise<void>;
  /**
   * The patch from the last state sent to the current one (undefined when nothing changed),
   * after the run itself changed something (the person's actions): a one-shot run then still
   * shows what they did. A following run's later events skip what it already reflects.
   */
  refresh(): Promise<InboxUpdate | undefined>;
  /** The last state sent (or, before the first update of a resumed run, the current one). */
  readonly state: InboxState;
}

/** Opens the inbox of the caller's own profile; a grantee is refused (access_denied). */
export async function openInbox(
  deps: Deps,
  caller: Caller,
  options: InboxOptions,
): Promise<Result<InboxRun>> {
  if (caller.kind !== 'subject') {
    return fail('access_denied', 'only the subject reviews their own profile; a grant token cannot');
  }
  // Read before the state: the state is then at least as new as the seq it carries (inbox-state.ts).
  const seq = await deps.store.latestChangeSeq();
  const loaded = await sharedState(deps, caller, seq);
  if (!loaded.ok) return loaded;
  const base = resumable(options, seq);
  const first: InboxUpdate | undefined =
    base === undefined ? { kind: 'snapshot', state: loaded.value } : deltaOrNothing(base, loaded.value);
  let subscription: ChangeSubscription | undefined;
  if (options.follow) {
    const followed = followChanges(deps, caller, seq);
    if (!followed.ok) return followed;
    subscription = followed.value;
  }
  let last = loaded.value;
  let closed = false;

  async function* updates(): AsyncGenerator<InboxUpdate> {
    if (first !== undefined) yield first;
    while (subscription !== undefined && !closed) {
      try {
        for await (const event of subscription) {
          if (event.seq <= last.seq) continue; // already reflected (a refresh read past it)
          const lag = deps.clock().getTime() - Date.parse(event.at);
          deps.metrics.changeLagSeconds.observe(Math.max(0, lag) / 1000);
          const next = await sharedState(deps, caller, event.seq);
          // The person's account cannot stop being theirs mid-run; a failure here is a bug.
          if (!next.ok) throw new Error(`review state failed: ${next.error.description}`);
          const delta = sharedDiff(last, next.value);
          last = next.value;
          yield { kind: 'delta', delta, state: last };
        }
        return;
      } catch (e) {
        // Too slow to keep up: the feed dropped us; the outbox has every event after `last`.
        if (!(e instanceof ChangeFeedOverflow) || closed) throw e;
        const again = followChanges(deps, caller, last.seq);
        if (!again.ok) throw new Error(again.error.description);
        subscription = again.value;
      }
    }
  }

  return ok({
    startsWithUpdate: first !== undefined,
    [Symbol.asyncIterator]: () => updates(),
    close() {
      closed = true;
      subscription?.close();
    },
    get state() {
      return last;
    },
    async refresh() {
      const next = await sharedState(deps, caller, await deps.store.latestChangeSeq());
      if (!next.ok) throw new Error(`review state failed: ${next.error.description}`);
      const delta = sharedDiff(last, next.value);
      last = next.value;
      return delta.length === 0 ? undefined : { kind: 'delta', delta, state: last };
    },
    async checkExpiries() {
      const now = deps.clock();
      for (const shown of last.active_grants) {
        if (shown.expires_at === undefined || new Date(shown.expires_at) > now) continue;
        const grant = await deps.store.getGrant(shown.grant_id);
        if (grant !== undefined) await announceIfExpired(deps, grant, now);
      }
    },
  });
}

/**
 * A person's open runs share one read of the state per change, and one patch per pair of states:
 * with 200 runs of one person every change was 200 reads and 200 diffs, which cost reads of the
 * profile more than half their throughput (`npm run bench:agui`). The state at a seq is the same
 * for every run (it is read after that seq was committed, so at least as new as it), and states
 * are never changed once made (each is its own JSON copy), so runs can hold the same objects.
 * Only the latest state per person is kept; a failed read is not.
 */
const latestStates = new WeakMap<object, Map<string, { seq: number; state: Promise<Result<InboxState>> }>>();

function sharedState(deps: Deps, caller: Caller, seq: number): Promise<Result<InboxState>> {
  if (caller.kind !== 'subject') return loadState(deps, caller, seq);
  let bySubject = latestStates.get(deps.store);
  if (bySubject === undefined) {
    bySubject = new Map();
    latestStates.set(deps.store, bySubject);
  }
  const hit = bySubject.get(caller.subjectId);
  if (hit?.seq === seq) return hit.state;
  const forget = () => {
    if (bySubject.get(caller.subjectId)?.state === state) bySubject.delete(caller.subjectId);
  };
  const state = loadState(deps, caller, seq).then(
    (r) => {
      if (!r.ok) forget();
      return r;
    },
    (e: unknown) => {
      forget();
      throw e;
    },
  );
  if (bySubject.size >= 10_000) bySubject.clear();
  bySubject.set(caller.subjectId, { seq, state });
  return state;
}

/**
 * The patch from one state to the next, made once for every run that held `from`. The next state
 * is held weakly: each state's entry holding the next strongly made a chain from the oldest state
 * any run still held to the newest, every state in between kept alive (issue 22, item 8).
 */
const patches = new WeakMap<object, { readonly to: WeakRef<InboxState>; readonly delta: PatchOperation[] }>();

function sharedDiff(from: object, to: InboxState): PatchOperation[] {
  const hit = patches.get(from);
  if (hit?.to.deref() === to) return hit.delta;
  const delta = diff(from, to);
  patches.set(from, { to: new WeakRef(to), delta });
  return delta;
}

/**
 * The state as its JSON text reads: what the client receives, so what the patches are computed
 * on (an `undefined` member would otherwise be a difference no client can see).
 */
async function loadState(deps: Deps, caller: Caller, seq: number): Promise<Result<InboxState>> {
  const state = await loadInboxState(deps, caller, seq);
  return state.ok ? ok(JSON.parse(JSON.stringify(state.value)) as InboxState) : state;
}

/**
 * The state a resuming client holds, when it can be the base of a patch: a JSON object whose
 * `seq` is the `since` it resumes from, and not past the outbox's end (a seq this provider never
 * wrote is someone else's state). Anything else gets a fresh snapshot, which is never a gap.
 */
function resumable(options: InboxOptions, latest: number): object | undefined {
  const { since, held } = options;
  if (since === undefined || since > latest) return undefined;
  if (typeof held !== 'object' || held === null || Array.isArray(held)) return undefined;
  return (held as { seq?: unknown }).seq === since ? held : undefined;
}

function deltaOrNothing(base: object, state: InboxState): InboxUpdate | undefined {
  const delta = diff(base, state);
  return delta.length === 0 ? undefined : { kind: 'delta', delta, state };
}

/** The RFC 6902 patch that turns `from` into `to` (add, remove and replace only). */
function diff(from: object, to: InboxState): PatchOperation[] {
  return jsonPatch.compare(from, to).filter((o): o is PatchOperation => o.op !== '_get');
}
