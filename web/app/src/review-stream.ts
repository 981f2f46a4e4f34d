import { HttpAgent } from '@ag-ui/client';
import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import type { ConsentRequest } from '../../../src/surfaces/shared/a2ui/index.ts';

// The person's review stream (POST /v1/agui/review, docs/ag-ui.md) through @ag-ui/client's
// HttpAgent. One following run keeps `state` current (the agent applies every STATE_DELTA);
// when it drops, the next run resumes from `state.seq` (`forwardedProps.since`), never a gap.
// A consent request ends a run as an interrupt: the following thread answers it `cancelled` at
// once (nothing decided; it keeps following) and the requests are read, and decided, on
// threads of their own (requests.ts), since a thread's open interrupts block its next run.

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'signed-out' | 'failed';

export interface StreamEvents {
  state(state: InboxState): void;
  connection(status: Connection, words?: string): void;
  /** A consent request interrupted the following run: the list of requests may have changed. */
  requestsChanged(): void;
  /** The person's activity log grew (CUSTOM `ppx.audit_appended`, docs/web-app.md "The activity log"). */
  auditAppended(): void;
}

export const REVIEW_URL = '/v1/agui/review';

/** The CUSTOM event a following run sends when the person's log grew (surfaces/agui/audit-notices.ts). */
const AUDIT_APPENDED = 'ppx.audit_appended';

/** Headers of every run on the person's session (the cookie goes by itself: same origin). */
export function sessionHeaders(csrf: string): Record<string, string> {
  return { 'X-CSRF-Token': csrf };
}

export function newThreadId(kind: string): string {
  return `ppx-${kind}-${crypto.randomUUID()}`;
}

export class ReviewStream {
  readonly #agent: HttpAgent;
  readonly #on: StreamEvents;
  #stopped = false;
  #seq: number | undefined;

  constructor(csrf: string, on: StreamEvents) {
    this.#agent = new HttpAgent({
      url: REVIEW_URL,
      headers: sessionHeaders(csrf),
      threadId: newThreadId('follow'),
    });
    this.#on = on;
  }

  get state(): InboxState | undefined {
    return this.#seq === undefined ? undefined : (this.#agent.state as InboxState);
  }

  stop(): void {
    this.#stopped = true;
    this.#agent.abortRun();
  }

  /** Follows until stopped, reconnecting after a drop (waiting longer after each failure). */
  async follow(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      const outcome = await this.#run();
      if (this.#stopped || outcome === 'signed-out') return;
      if (outcome === 'interrupted') {
        failures = 0;
        this.#on.requestsChanged();
        continue;
      }
      failures = outcome === 'ended' ? 0 : failures + 1;
      this.#on.connection('reconnecting', RECONNECT_WORDS);
      await sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
    }
  }

  async #run(): Promise<'interrupted' | 'ended' | 'failed' | 'signed-out'> {
    const agent = this.#agent;
    // Answer every interrupt this thread holds: dismissed here, decided on threads of their own.
    const open = agent.pendingInterrupts ?? [];
    const resume = open.map((i) => ({ interruptId: i.id, status: 'cancelled' as const }));
    const forwardedProps = this.#seq === undefined ? {} : { since: this.#seq };
    let interrupted = false;
    let error: string | undefined;
    this.#on.connection(this.#seq === undefined ? 'connecting' : 'reconnecting');
    try {
      await agent.runAgent(
        { forwardedProps, ...(resume.length > 0 ? { resume } : {}) },
        {
          // The provider took the run: from here it follows (a resume with nothing new sends no state).
          onRunStartedEvent: () => {
            if (this.#seq !== undefined) this.#on.connection('live');
          },
          onStateChanged: ({ state }) => {
            this.#seq = (state as InboxState).seq;
            this.#on.connection('live');
            this.#on.state(state as InboxState);
          },
          onCustomEvent: ({ event }) => {
            if (event.name === AUDIT_APPENDED) this.#on.auditAppended();
          },
          onRunFinishedEvent: (finished) => {
            interrupted = finished.outcome === 'interrupt';
          },
          onRunErrorEvent: ({ event }) => {
            error = event.message;
          },
        },
      );
    } catch (e) {
      const status = (e as { status?: number }).status;
      if (status === 401) {
        this.#on.connection('signed-out', 'You are signed out. Sign in again to see your preferences.');
        return 'signed-out';
      }
      if (this.#stopped) return 'ended';
      error = status === 403 ? 'This page could not prove it is yours. Reload it.' : undefined;
    }
    if (interrupted) return 'interrupted';
    if (error !== undefined) {
      this.#on.connection('failed', `The live view stopped: ${error}`);
      return 'failed';
    }
    return 'ended';
  }
}

const RECONNECT_WORDS = 'The live view lost its connection. Trying again…';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A consent request as an interrupt carries it (docs/ag-ui.md, "Consent requests as interrupts"). */
export interface ConsentInterrupt {
  readonly id: string;
  readonly expiresAt?: string;
  readonly request: ConsentRequest;
}

export function consentInterrupt(i: {
  id: string;
  expiresAt?: string;
  metadata?: unknown;
}): ConsentInterrupt | undefined {
  const m = i.metadata as Partial<ConsentRequest> | undefined;
  if (!m?.grant_request_id || !m.client_id || !m.grant_draft) return undefined;
  return {
    id: i.id,
    ...(i.expiresAt ? { expiresAt: i.expiresAt } : {}),
    request: { grant_request_id: m.grant_request_id, client_id: m.client_id, grant_draft: m.grant_draft },
  };
}
