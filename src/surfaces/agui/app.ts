import { EventEncoder } from '@ag-ui/encoder';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { ok, type PpxFailure } from '../../model/errors.ts';
import type { Deps } from '../../operations/deps.ts';
import { InterruptBook } from '../../operations/inbox/consent-interrupts.ts';
import { openInbox } from '../../operations/inbox/inbox-stream.ts';
import { readJsonBody } from '../shared/body.ts';
import { errorResponse, ppxRefusal } from '../shared/errors.ts';
import { API, FrontDoor } from '../shared/front-door.ts';
import { cookiePlan } from '../shared/session.ts';
import { StreamLimit } from '../shared/stream-limit.ts';
import { prepareActions } from './actions.ts';
import { inboxCaller } from './caller.ts';
import { type RunIds, runError, runStarted } from './events.ts';
import { inboxStream } from './inbox-stream.ts';
import { inboxRunInput } from './input.ts';
import { threadInterrupts } from './interrupts.ts';

// The AG-UI surface (WIRE-NOTES §7, bindings/ag-ui.md): the person's inbox stream at
// POST /v1/agui/review. A short pipeline: rate limit → subject bearer or browser session → RunAgentInput → open the
// run (operations/inbox/inbox-stream.ts) → SSE. Everything refused before the stream starts is an
// HTTP error with the PPX body; once it has started, a failure is a RUN_ERROR event.

export interface AguiOptions {
  readonly bodyLimitBytes: number;
  /** How often a following run writes an SSE comment (proxies close silent streams; Node's fetch at 300 s). */
  readonly keepaliveMs?: number;
  readonly log?: (msg: string) => void;
  /** Following runs one person may hold open on this instance (shared/stream-limit.ts). */
  readonly maxRunsPerPerson?: number;
}

/** Following runs of one person, per instance: a few tabs and apps, not hundreds. */
const MAX_RUNS_PER_PERSON = 16;

// biome-ignore lint/suspicious/noExplicitAny: mounted on the root app, whatever its bindings
type App = Hono<any>;

export function mountAgui(app: App, deps: Deps, options: AguiOptions): void {
  const door = new FrontDoor(deps, API);
  const plan = cookiePlan(deps.provider.baseUrl);
  const book = new InterruptBook();
  const limit = new StreamLimit(options.maxRunsPerPerson ?? MAX_RUNS_PER_PERSON);
  app.post('/v1/agui/review', async (c: Context<{ Bindings: HttpBindings }>) => {
    const entry = await door.enter(deps, c, 'optional');
    const headers = entry.headers;
    if (!entry.ok) return ppxRefusal(entry.refusal, headers);
    const refuse = (failure: PpxFailure, tokenPresented?: boolean) =>
      ppxRefusal(entry.refuse(failure, tokenPresented), headers);

    const who = await inboxCaller(c, deps, plan, entry);
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
    const request = inboxRunInput(body.value);
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
    const run = await openInbox(deps, who.caller, request.value);
    if (!run.ok) {
      release();
      return refuse(run.error);
    }
    const stream = inboxStream(deps, run.value, request.value, {
      ...options,
      onClose: release,
      caller: who.caller,
      credential: who.credential,
      ...(c.env?.outgoing ? { outgoing: c.env.outgoing } : {}),
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

function sse(stream: ReadableStream<Uint8Array>, headers: Iterable<readonly [string, string]>): Response {
  const encoder = new EventEncoder(); // no `accept`: */* would name protobuf while writing SSE
  const out = new Headers();
  for (const [name, value] of headers) out.set(name, value);
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
