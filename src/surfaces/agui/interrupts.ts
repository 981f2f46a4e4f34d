import { type CustomEvent, EventType, type RunFinishedEvent } from '@ag-ui/core';
import { ok, type Result } from '../../model/errors.ts';
import type { Caller } from '../../operations/callers/caller.ts';
import type { Deps } from '../../operations/deps.ts';
import {
  type Answered,
  answerInterrupts,
  CONSENT_ACTIONS,
  CONSENT_REASON,
  type ConsentInterrupt,
  consentInterrupts,
  type InterruptBook,
} from '../../operations/inbox/consent-interrupts.ts';
import type { RunIds } from './events.ts';
import type { InboxRunInput } from './input.ts';

// Consent requests as AG-UI 1.0 interrupts (WIRE-NOTES §7; PITFALLS, AG-UI 1.0.0): AG-UI has no
// INTERRUPT event type, so a run ends with RUN_FINISHED `outcome: {type: "interrupt"}`, and a
// CUSTOM event named INTERRUPT goes first for clients that follow the PPX binding literally.

/** What a `resume` payload holds, as a JSON Schema, told with each interrupt. */
const RESPONSE_SCHEMA = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { enum: [...CONSENT_ACTIONS] },
    grant: {
      type: 'object',
      description:
        'with "edit": the narrowing, as POST /v1/consent/approve takes it (purposes, allowed_domains, allowed_namespaces, allowed_claim_keys, allowed_operations, cross_domain_transfer, writeback_policy, expires_at); only ever narrower than asked',
    },
  },
} as const;

/** The CUSTOM INTERRUPT events and the interrupt RUN_FINISHED ending a run. */
export function interruptEvents(
  ids: RunIds,
  open: readonly ConsentInterrupt[],
  at: Date,
): [...CustomEvent[], RunFinishedEvent] {
  const customs: CustomEvent[] = open.map((i) => ({
    type: EventType.CUSTOM,
    name: 'INTERRUPT',
    value: { kind: CONSENT_REASON, grant_draft: i.grant_draft, actions: [...CONSENT_ACTIONS] },
    timestamp: at.getTime(),
  }));
  const finished: RunFinishedEvent = {
    type: EventType.RUN_FINISHED,
    threadId: ids.threadId,
    runId: ids.runId,
    outcome: {
      type: 'interrupt',
      interrupts: open.map((i) => ({
        id: i.id,
        reason: CONSENT_REASON,
        message: `${i.client_id} asks for access to your ${i.grant_draft.allowed_domains.join(', ')} preferences`,
        responseSchema: RESPONSE_SCHEMA,
        expiresAt: i.expires_at,
        metadata: {
          grant_request_id: i.grant_request_id,
          client_id: i.client_id,
          grant_draft: i.grant_draft,
          actions: [...CONSENT_ACTIONS],
        },
      })),
    },
    timestamp: at.getTime(),
  };
  return [...customs, finished];
}

/** The interrupts of one thread: resuming it, and what may interrupt its run. */
export interface ThreadInterrupts {
  /** Applies the run's `resume`; a failure is the run's RUN_ERROR, with nothing applied. */
  resume(): Promise<Result<readonly Answered[]>>;
  /** The consent requests that end the run now (none dismissed on this thread). */
  pending(): Promise<ConsentInterrupt[]>;
  /** Records the interrupts the run ended with: the next run of the thread must answer them. */
  opened(open: readonly ConsentInterrupt[]): void;
}

export function threadInterrupts(
  deps: Deps,
  book: InterruptBook,
  caller: Extract<Caller, { kind: 'subject' }>,
  request: InboxRunInput,
): ThreadInterrupts {
  const known = book.get(caller.subjectId, request.threadId);
  return {
    async resume() {
      if (request.resume.length === 0 && (known === undefined || known.open.size === 0)) return ok([]);
      const answered = await answerInterrupts(deps, caller, request.resume, known?.open);
      if (!answered.ok) return answered;
      const thread = book.thread(caller.subjectId, request.threadId);
      thread.open.clear();
      for (const a of answered.value) if (a.outcome === 'dismissed') thread.dismissed.add(a.interruptId);
      return answered;
    },
    pending: () =>
      consentInterrupts(deps, caller.subjectId, book.get(caller.subjectId, request.threadId)?.dismissed),
    opened(open) {
      const thread = book.thread(caller.subjectId, request.threadId);
      thread.open = new Set(open.map((i) => i.id));
    },
  };
}
