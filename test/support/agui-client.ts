import assert from 'node:assert/strict';
import { type BaseEvent, EventType, HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import type { InboxState } from '../../src/operations/inbox/inbox-state.ts';
import type { TestProvider } from './provider.ts';

// Driving the AG-UI review stream (POST /v1/agui/review) with @ag-ui/client's HttpAgent, the
// client a person's app uses: it validates every event, enforces AG-UI's ordering rules (a run
// that breaks them fails) and applies every STATE_DELTA itself. Not a *.test.ts file.

export function reviewUrl(p: TestProvider): string {
  return `${p.url}/v1/agui/review`;
}

export function reviewAgent(p: TestProvider, token = p.subjectToken): HttpAgent {
  return new HttpAgent({ url: reviewUrl(p), headers: { Authorization: `Bearer ${token}` } });
}

/** What a run did, as the client saw it. */
export interface RunRecord {
  readonly events: BaseEvent[];
  /** Set when the client rejected the run (an ordering rule, an HTTP error) or it sent RUN_ERROR. */
  failure?: Error;
}

export function recorder(record: RunRecord) {
  return {
    onEvent: ({ event }: { event: BaseEvent }) => {
      record.events.push(event);
    },
    onRunFailed: ({ error }: { error: Error }) => {
      record.failure = error;
    },
  };
}

/** A one-shot run with a fresh agent: its events and the state it ends with. */
export async function oneShot(
  p: TestProvider,
  token = p.subjectToken,
): Promise<{ events: BaseEvent[]; state: InboxState }> {
  const agent = reviewAgent(p, token);
  const record: RunRecord = { events: [] };
  await agent.runAgent({ forwardedProps: { follow: false } }, recorder(record));
  assert.equal(record.failure, undefined, `the one-shot run failed: ${record.failure?.message}`);
  assert.deepEqual(
    record.events.map((e) => e.type),
    [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT, EventType.RUN_FINISHED],
  );
  return { events: record.events, state: agent.state as InboxState };
}

/** A following run in progress. */
export interface Following {
  readonly agent: HttpAgent;
  readonly record: RunRecord;
  /** Ends the run from the client's side (the server sees the connection close). */
  stop(): Promise<void>;
}

export function follow(
  agent: HttpAgent,
  forwardedProps: Record<string, unknown> = {},
  resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[],
): Following {
  const record: RunRecord = { events: [] };
  const done = agent
    .runAgent({ forwardedProps, ...(resume ? { resume } : {}) }, recorder(record))
    .catch((e: unknown) => {
      // An aborted fetch rejects the run; anything else is a real failure, kept for the asserts.
      if (!(e instanceof Error && e.name === 'AbortError')) record.failure ??= e as Error;
    });
  return {
    agent,
    record,
    async stop() {
      agent.abortRun();
      await done;
    },
  };
}

/** Waits until `check` holds, every few milliseconds, for at most `ms`. */
export async function eventually(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Asserts that the state a following client holds, having applied every STATE_DELTA, is exactly
 * the state of a fresh one-shot run at the same seq (whole states compared). Taking the fresh
 * state may itself announce an expiry (a new seq); then both sides move on and it tries again.
 */
export async function assertConverged(p: TestProvider, f: Following): Promise<InboxState> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const fresh = await oneShot(p);
    const held = () => f.agent.state as InboxState;
    await eventually(
      () => (held().seq ?? -1) >= fresh.state.seq,
      `the stream to reach seq ${fresh.state.seq}`,
    );
    assert.equal(f.record.failure, undefined, `the following run failed: ${f.record.failure?.message}`);
    if (held().seq === fresh.state.seq) {
      assert.deepEqual(held(), fresh.state, 'the patched state is exactly a fresh snapshot');
      return fresh.state;
    }
  }
  return assert.fail('the stream never settled on a seq a fresh snapshot showed');
}

/** The `data:` events of a raw SSE body, each validated against AG-UI's own event schema. */
export function parseSse(text: string): BaseEvent[] {
  assert.ok(!text.includes('\r'), 'no CR in the stream: the client splits events on \\n\\n only');
  const events: BaseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (block === '' || block.startsWith(':')) continue;
    assert.ok(block.startsWith('data: '), `an SSE data block: ${block.slice(0, 80)}`);
    const event = JSON.parse(block.slice('data: '.length));
    const parsed = EventSchema.safeParse(event);
    assert.ok(parsed.success, `a valid AG-UI event: ${block.slice(0, 200)}`);
    events.push(event);
  }
  return events;
}
