import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { shownApps } from '../../operations/accounts/shown-apps.ts';
import { followAuditAppends } from '../../operations/audit/audit-notices.ts';
import type { Caller } from '../../operations/callers/caller.ts';
import type { Deps } from '../../operations/deps.ts';
import type { Answered } from '../../operations/inbox/consent-interrupts.ts';
import type { InboxRun, InboxUpdate } from '../../operations/inbox/inbox-stream.ts';
import { boundedStream, type Outgoing } from '../shared/bounded-stream.ts';
import { credentialEnded, type StreamCredential } from '../shared/stream-credential.ts';
import { decisionEvents, type PreparedAction, runAction, toolCallEvents } from './actions.ts';
import { auditAppendedEvent, coalesce } from './audit-notices.ts';
import { type RunIds, runError, runFinished, runStarted, updateEvent } from './events.ts';
import { appIdsOf, explanation, textMessageEvents } from './explanations.ts';
import type { InboxRunInput } from './input.ts';
import { interruptEvents, type ThreadInterrupts } from './interrupts.ts';

// One inbox run as SSE (WIRE-NOTES §7), once app.ts has let it start. Two limits hold it to
// what it was opened for (issue 22, items 8 and 9): what waits for its reader is bounded (a run
// that falls behind is cut, shared/bounded-stream.ts), and before each event carrying the
// person's data the credential it was opened with is checked again (a sign-out, an expired or
// revoked token ends it with RUN_ERROR, shared/stream-credential.ts).

/** Under the 15 s WIRE-NOTES §7 asks for, with room for a busy event loop. */
const KEEPALIVE_MS = 10_000;

const UTF8 = new TextEncoder();
const KEEPALIVE = UTF8.encode(': keepalive\n\n');

/** What a run does besides following the state: the person's actions and answers, explanations. */
export interface RunWork {
  readonly caller: Caller;
  /** What the run was opened with, checked again before each event. */
  readonly credential: StreamCredential;
  /** Checked before the stream started (actions.ts#prepareActions). */
  readonly actions: readonly PreparedAction[];
  /** The consent decisions the run's resume made before it started (each a tool call to report). */
  readonly decisions: readonly Answered[];
  readonly interrupts?: ThreadInterrupts;
  /** Called once when the run ends, whichever side ends it. */
  readonly onClose?: () => void;
  /** The response the run is written to (its unread bytes count against the run's bound). */
  readonly outgoing?: Outgoing;
}

export interface RunStreamOptions {
  /** How often a following run writes an SSE comment (proxies close silent streams; Node's fetch at 300 s). */
  readonly keepaliveMs?: number;
  readonly log?: (msg: string) => void;
}

/**
 * A state update as SSE bytes, made once however many runs send it: the runs of one person
 * share their states and patches (operations/inbox/inbox-stream.ts), so they share the bytes too, and 16 runs
 * behind on one 200 KB patch hold one copy of it, not 16. Keyed by the patch (or the snapshot's
 * state), which lives as long as some run can still send it.
 */
const encodedUpdates = new WeakMap<object, Uint8Array>();

function encodedUpdate(update: InboxUpdate, at: Date): Uint8Array {
  const key = update.kind === 'snapshot' ? update.state : update.delta;
  let bytes = encodedUpdates.get(key);
  if (bytes === undefined) {
    bytes = UTF8.encode(new EventEncoder().encode(updateEvent(update, at)));
    encodedUpdates.set(key, bytes);
  }
  return bytes;
}

/**
 * The run as SSE: RUN_STARTED; the consent decisions of its resume, as tool calls; the first
 * state; the person's actions, each a tool call, and the state they left; the explanations asked
 * for; then, following, a patch per change; RUN_FINISHED when the inbox run ends on the provider's
 * side (a one-shot run after the above, or the feed closing) or with a consent request's interrupt.
 * The client leaving cancels the stream, which closes the inbox run's subscription and its timer.
 */
export function inboxStream(
  deps: Deps,
  run: InboxRun,
  request: InboxRunInput,
  options: RunStreamOptions & RunWork,
): ReadableStream<Uint8Array> {
  const encoder = new EventEncoder();
  const ids: RunIds = { threadId: request.threadId, runId: request.runId };
  const log = options.log ?? (() => undefined);
  let timer: ReturnType<typeof setInterval> | undefined;
  let unfollowAudit: (() => void) | undefined;
  let stopped = false;
  const open = deps.metrics.openStreams.labels('agui');
  open.inc();
  const stop = () => {
    if (stopped) return;
    stopped = true;
    open.dec();
    if (timer !== undefined) clearInterval(timer);
    unfollowAudit?.();
    run.close();
    options.onClose?.();
  };
  const bounds = {
    surface: 'agui' as const,
    metrics: deps.metrics,
    onEnd: stop,
    ...(options.outgoing ? { outgoing: options.outgoing } : {}),
  };
  return boundedStream(bounds, (sink) => {
    const send = (event: BaseEvent) => {
      sink.write(UTF8.encode(encoder.encode(event)));
    };
    /**
     * Whether the run may still speak for the person: its credential checked now. When gone, the
     * run ends here with RUN_ERROR in words, and nothing more is sent.
     */
    const allowed = async (): Promise<boolean> => {
      const ended = await credentialEnded(deps, options.credential);
      if (ended !== undefined && sink.open) {
        send(runError(ended, deps.clock()));
        sink.close();
      }
      return sink.open;
    };
    const sendUpdate = async (update: InboxUpdate) => {
      if (await allowed()) sink.write(encodedUpdate(update, deps.clock()));
    };
    send(runStarted(ids, deps.clock()));
    // Set when the run's last event (RUN_FINISHED, or an interrupt's) is sent: nothing after it.
    let over = false;
    const caller = options.caller;
    if (request.follow && caller.kind === 'subject') {
      // The person's log grew: said between the run's other events, never after its end.
      const notice = coalesce(() => {
        void allowed()
          .then((yes) => {
            if (yes && !over) send(auditAppendedEvent(deps.clock()));
          })
          .catch((e: unknown) => log(`review audit notice failed: ${String(e)}`));
      });
      const unfollow = followAuditAppends(deps, caller.subjectId, notice.poke);
      unfollowAudit = () => {
        notice.stop();
        unfollow();
      };
    }
    if (request.follow) {
      timer = setInterval(() => {
        if (!sink.open) return;
        sink.write(KEEPALIVE);
        // A run with nothing to say still ends soon after its credential does.
        allowed().catch((e: unknown) => log(`review credential check failed: ${String(e)}`));
        run.checkExpiries().catch((e: unknown) => log(`review expiry check failed: ${String(e)}`));
      }, options.keepaliveMs ?? KEEPALIVE_MS);
    }
    void (async () => {
      try {
        // A pending consent request ends the run as an interrupt (WIRE-NOTES §7), looked for
        // after each state sent, so the client holds the state the request arrived in.
        const interrupted = async () => {
          const open = (await options.interrupts?.pending()) ?? [];
          if (open.length === 0 || !(await allowed())) return false;
          options.interrupts?.opened(open);
          over = true;
          for (const event of interruptEvents(ids, open, deps.clock())) send(event);
          return true;
        };
        if (options.decisions.length > 0 && (await allowed())) {
          for (const decided of options.decisions) {
            if (decided.call) for (const e of decisionEvents(decided.call, deps.clock())) send(e);
          }
        }
        const updates = run[Symbol.asyncIterator]();
        if (run.startsWithUpdate) {
          const first = await updates.next();
          if (!first.done) await sendUpdate(first.value);
        }
        if (options.actions.length > 0) {
          for (const action of options.actions) {
            if (!(await allowed())) break;
            const result = await runAction(deps, options.caller, action);
            const call = {
              toolCallId: action.toolCallId,
              name: action.operation.name,
              arguments: action.arguments,
            };
            for (const e of toolCallEvents(call, result, deps.clock())) send(e);
          }
          const after = sink.open ? await run.refresh() : undefined;
          if (after !== undefined) await sendUpdate(after);
        }
        if (request.explain.length > 0 && (await allowed())) {
          // Apps are named as the pages name them (issue 22 item 15), looked up once per run.
          const apps = await shownApps(deps, appIdsOf(run.state));
          for (const target of request.explain) {
            const sentences = explanation(run.state, target, deps.clock(), apps);
            for (const e of textMessageEvents(sentences, deps.clock())) send(e);
          }
        }
        let ended = await interrupted();
        while (!ended && sink.open) {
          const next = await updates.next();
          if (next.done) break;
          await sendUpdate(next.value);
          ended = await interrupted();
        }
        over = true;
        if (!ended) send(runFinished(ids, deps.clock()));
      } catch (e) {
        over = true;
        log(`review stream failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        send(
          runError(
            {
              code: 'server_error',
              description: 'the provider failed to follow your profile; it has been logged',
            },
            deps.clock(),
          ),
        );
      }
      sink.close();
    })();
  });
}
