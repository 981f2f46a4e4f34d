import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { ok, type PpxFailure } from '../../model/errors.ts';
import type { Caller } from '../../operations/caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { resourceMetadataUrl } from '../../operations/resources.ts';
import { type Answered, InterruptBook } from '../../operations/review-interrupts.ts';
import { openReview, type ReviewRun } from '../../operations/review-stream.ts';
import { shownApps } from '../../operations/shown-apps.ts';
import { startApiRequest } from '../shared/api-request.ts';
import { readJsonBody } from '../shared/body.ts';
import { errorResponse } from '../shared/errors.ts';
import { cookiePlan } from '../shared/session.ts';
import { decisionEvents, type PreparedAction, prepareActions, runAction, toolCallEvents } from './actions.ts';
import { reviewCaller } from './caller.ts';
import { type RunIds, runError, runFinished, runStarted, updateEvent } from './events.ts';
import { appIdsOf, explanation, textMessageEvents } from './explanations.ts';
import { type ReviewRequest, reviewRequest } from './input.ts';
import { interruptEvents, type ThreadInterrupts, threadInterrupts } from './interrupts.ts';
import { RunLimit } from './run-limit.ts';

// The AG-UI surface (WIRE-NOTES §7, bindings/ag-ui.md): the person's review stream at
// POST /v1/agui/review. A short pipeline: rate limit → subject bearer or browser session → RunAgentInput → open the
// review (operations/review-stream.ts) → SSE. Everything refused before the stream starts is an
// HTTP error with the PPX body; once it has started, a failure is a RUN_ERROR event.

export interface AguiOptions {
  readonly bodyLimitBytes: number;
  /** How often a following run writes an SSE comment (proxies close silent streams; Node's fetch at 300 s). */
  readonly keepaliveMs?: number;
  readonly log?: (msg: string) => void;
  /** Following runs one person may hold open on this instance (run-limit.ts). */
  readonly maxRunsPerPerson?: number;
}

/** Under the 15 s WIRE-NOTES §7 asks for, with room for a busy event loop. */
export const KEEPALIVE_MS = 10_000;

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;

export function mountAgui(app: App, deps: Deps, options: AguiOptions): void {
  const errors = { resourceMetadata: resourceMetadataUrl(deps.provider, 'api') };
  const plan = cookiePlan(deps.provider.baseUrl);
  const book = new InterruptBook();
  const limit = new RunLimit(options.maxRunsPerPerson);
  app.post('/v1/agui/review', async (c: Context<{ Bindings: HttpBindings }>) => {
    const { token, headers, respond: refuse, refused } = await startApiRequest(deps, c, errors);
    if (refused) return refused;

    const who = await reviewCaller(c, deps, plan, token);
    if (!who.ok) return refuse(who.error, who.tokenPresented);

    const body = await readJsonBody(
      {
        stream: c.env?.incoming ?? c.req.raw.body,
        contentLength: c.req.header('content-length'),
        contentType: c.req.header('content-type'),
      },
      options.bodyLimitBytes,
    );
    if (!body.ok) return refuseInput(body.error, undefined);
    const request = reviewRequest(body.value);
    if (!request.ok) return refuseInput(request.error, body.value);
    const actions = prepareActions(request.value.actions);
    if (!actions.ok) return refuseInput(actions.error, body.value);

    const thread =
      who.caller.kind === 'subject' ? threadInterrupts(deps, book, who.caller, request.value) : undefined;
    // The answers first, so that the run's first state shows what they decided.
    // Counted before anything is applied: a refused run must not have acted.
    const release =
      request.value.follow && who.caller.kind === 'subject'
        ? limit.take(who.caller.subjectId)
        : () => undefined;
    if (release === undefined) {
      return refuse({
        code: 'rate_limited',
        description: `you already have ${limit.max} live views of your profile open; close one (another tab or app) and try again`,
      });
    }
    const answered = (await thread?.resume()) ?? ok([]);
    if (!answered.ok) {
      release();
      return sse(failedRun(deps, request.value, answered.error), headers);
    }
    const run = await openReview(deps, who.caller, request.value);
    if (!run.ok) {
      release();
      return refuse(run.error);
    }
    const stream = reviewStream(deps, run.value, request.value, {
      ...options,
      onClose: release,
      caller: who.caller,
      actions: actions.value,
      decisions: answered.value,
      ...(thread ? { interrupts: thread } : {}),
    });
    return sse(stream, headers);

    /**
     * Input that cannot be run: an event stream holding RUN_ERROR for a client that reads one
     * (HttpAgent asks for text/event-stream: it then shows the error as the run's, in words), else
     * the HTTP error. A body too large or not sent as JSON stays an HTTP error: that is transport.
     */
    function refuseInput(failure: PpxFailure, raw: unknown): Response {
      const wantsEvents = (c.req.header('accept') ?? '').includes('text/event-stream');
      if (!wantsEvents || failure.code !== 'invalid_request') return refuse(failure);
      return sse(failedRun(deps, runIdsOf(raw), failure), headers);
    }
  });
  // RFC 9110 §15.5.6: a run is only ever started with POST.
  app.on(['GET', 'PUT', 'PATCH', 'DELETE'], '/v1/agui/review', () =>
    errorResponse(
      { code: 'method_not_allowed', description: 'start a review run with POST /v1/agui/review' },
      { headers: new Headers({ Allow: 'POST' }) },
    ),
  );
}

const UTF8 = new TextEncoder();

function sse(
  stream: ReadableStream<Uint8Array>,
  headers: ConstructorParameters<typeof Headers>[0],
): Response {
  const encoder = new EventEncoder(); // no `accept`: */* would name protobuf while writing SSE
  const out = new Headers(headers);
  out.set('Content-Type', encoder.getContentType());
  // The person's own data: never kept by a cache; and no proxy buffering of a live stream.
  out.set('Cache-Control', 'no-store');
  out.set('X-Accel-Buffering', 'no');
  return new Response(stream, { status: 200, headers: out });
}

/** The run ids of a body, when it has readable ones (a RUN_ERROR may then follow RUN_STARTED). */
function runIdsOf(raw: unknown): RunIds | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { threadId, runId } = raw as { threadId?: unknown; runId?: unknown };
  return typeof threadId === 'string' && typeof runId === 'string' ? { threadId, runId } : undefined;
}

/**
 * A run refused after its input was read (a resume that cannot apply, actions that cannot run):
 * RUN_STARTED when its ids are known (AG-UI lets RUN_ERROR come first otherwise), RUN_ERROR.
 */
function failedRun(deps: Deps, ids: RunIds | undefined, failure: PpxFailure): ReadableStream<Uint8Array> {
  const encoder = new EventEncoder();
  const events = [...(ids ? [runStarted(ids, deps.clock())] : []), runError(failure, deps.clock())];
  const text = events.map((e) => encoder.encode(e));
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(UTF8.encode(text.join('')));
      controller.close();
    },
  });
}
const KEEPALIVE = UTF8.encode(': keepalive\n\n');

/** What a run does besides following the state: the person's actions and answers, explanations. */
export interface RunWork {
  readonly caller: Caller;
  /** Checked before the stream started (actions.ts#prepareActions). */
  readonly actions: readonly PreparedAction[];
  /** The consent decisions the run's resume made before it started (each a tool call to report). */
  readonly decisions: readonly Answered[];
  readonly interrupts?: ThreadInterrupts;
  /** Called once when the run ends, whichever side ends it. */
  readonly onClose?: () => void;
}

/**
 * The run as SSE: RUN_STARTED; the consent decisions of its resume, as tool calls; the first
 * state; the person's actions, each a tool call, and the state they left; the explanations asked
 * for; then, following, a patch per change; RUN_FINISHED when the review ends on the provider's
 * side (a one-shot run after the above, or the feed closing) or with a consent request's interrupt.
 * The client leaving cancels the stream, which closes the review's subscription and its timer.
 */
export function reviewStream(
  deps: Deps,
  run: ReviewRun,
  request: ReviewRequest,
  options: Pick<AguiOptions, 'keepaliveMs' | 'log'> & RunWork,
): ReadableStream<Uint8Array> {
  const encoder = new EventEncoder();
  const ids: RunIds = { threadId: request.threadId, runId: request.runId };
  const log = options.log ?? (() => undefined);
  let timer: ReturnType<typeof setInterval> | undefined;
  let gone = false;
  const open = deps.metrics.openStreams.labels('agui');
  open.inc();
  const stop = () => {
    if (gone) return;
    gone = true;
    open.dec();
    if (timer !== undefined) clearInterval(timer);
    run.close();
    options.onClose?.();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (event: BaseEvent) => {
        if (!gone) controller.enqueue(UTF8.encode(encoder.encode(event)));
      };
      send(runStarted(ids, deps.clock()));
      if (request.follow) {
        timer = setInterval(() => {
          if (gone) return;
          controller.enqueue(KEEPALIVE);
          run.checkExpiries().catch((e: unknown) => log(`review expiry check failed: ${String(e)}`));
        }, options.keepaliveMs ?? KEEPALIVE_MS);
      }
      void (async () => {
        try {
          // A pending consent request ends the run as an interrupt (WIRE-NOTES §7), looked for
          // after each state sent, so the client holds the state the request arrived in.
          const interrupted = async () => {
            const open = (await options.interrupts?.pending()) ?? [];
            if (open.length === 0 || gone) return false;
            options.interrupts?.opened(open);
            for (const event of interruptEvents(ids, open, deps.clock())) send(event);
            return true;
          };
          for (const decided of options.decisions) {
            if (decided.call) for (const e of decisionEvents(decided.call, deps.clock())) send(e);
          }
          const updates = run[Symbol.asyncIterator]();
          if (run.startsWithUpdate) {
            const first = await updates.next();
            if (!first.done) send(updateEvent(first.value, deps.clock()));
          }
          if (options.actions.length > 0) {
            for (const action of options.actions) {
              const result = await runAction(deps, options.caller, action);
              const call = {
                toolCallId: action.toolCallId,
                name: action.operation.name,
                arguments: action.arguments,
              };
              for (const e of toolCallEvents(call, result, deps.clock())) send(e);
            }
            const after = await run.refresh();
            if (after !== undefined) send(updateEvent(after, deps.clock()));
          }
          // Apps are named as the pages name them (issue 22 item 15), looked up once per run.
          const apps = request.explain.length > 0 ? await shownApps(deps, appIdsOf(run.state)) : new Map();
          for (const target of request.explain) {
            const sentences = explanation(run.state, target, deps.clock(), apps);
            for (const e of textMessageEvents(sentences, deps.clock())) send(e);
          }
          let ended = await interrupted();
          while (!ended && !gone) {
            const next = await updates.next();
            if (next.done) break;
            send(updateEvent(next.value, deps.clock()));
            ended = await interrupted();
          }
          if (!ended) send(runFinished(ids, deps.clock()));
        } catch (e) {
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
        if (!gone) {
          stop();
          controller.close();
        }
      })();
    },
    cancel() {
      stop();
    },
  });
}
