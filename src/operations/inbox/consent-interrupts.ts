import { z } from 'zod';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRequestDraft, GrantRequestRecord } from '../../model/grant-request.ts';
import { parseInput } from '../../model/validate.ts';
import { narrowDraft } from '../../policy/narrowing.ts';
import type { Caller } from '../callers/caller.ts';
import { approveGrantRequest, NarrowInput, rejectGrantRequest } from '../consent/decide.ts';
import type { Deps } from '../deps.ts';

// Consent requests as interrupts of the person's inbox run (WIRE-NOTES §7): a pending request
// ends a run with an interrupt; the client answers it with `resume` on a new run of the same
// thread, and the answer goes through the consent flow's own operations (consent/decide.ts), so
// the inbox and the consent page decide alike. The interrupt id names the request
// (`consent:<grant_request_id>`), so any instance can tell what an answer is about; which
// interrupts a thread still has open is kept by the surface (InterruptBook).

export const CONSENT_REASON = 'ppx.consent_request';
export const CONSENT_ACTIONS = ['approve', 'edit', 'reject'] as const;
const PREFIX = 'consent:';

/** A pending consent request, as the run's interrupt shows it. */
export interface ConsentInterrupt {
  readonly id: string;
  readonly grant_request_id: string;
  readonly client_id: string;
  readonly grant_draft: GrantRequestDraft;
  readonly expires_at: string;
}

function interruptId(grantRequestId: string): string {
  return PREFIX + grantRequestId;
}

/**
 * The person's consent requests awaiting a decision, oldest first, but those the thread already
 * dismissed (a `cancelled` answer) and the elements of a grant package (decided together on the
 * package page, never one by one).
 */
export async function consentInterrupts(
  deps: Deps,
  subjectId: string,
  dismissed: ReadonlySet<string> = new Set(),
): Promise<ConsentInterrupt[]> {
  // Only live requests are listed: an expired or withdrawn one interrupts no run.
  const pending = await deps.store.listPendingGrantRequestsBySubject(subjectId, deps.clock().toISOString());
  return pending
    .filter((r) => !r.package && !dismissed.has(interruptId(r.grant_request_id)))
    .map((r) => ({
      id: interruptId(r.grant_request_id),
      grant_request_id: r.grant_request_id,
      client_id: r.client_id,
      grant_draft: r.draft,
      expires_at: r.expires_at,
    }));
}

/** One `resume` entry of a RunAgentInput. */
export interface ResumeAnswer {
  readonly interruptId: string;
  readonly status: 'resolved' | 'cancelled';
  readonly payload?: unknown;
}

/** The payload of a resolved answer: the decision, and for `edit` the narrowing. */
const Decision = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('approve') }),
  z.strictObject({ action: z.literal('edit'), grant: NarrowInput }),
  z.strictObject({ action: z.literal('reject') }),
]);

/** The consent flow's operation an answer called, as the run reports it (a TOOL_CALL_*). */
export interface DecisionCall {
  readonly name: 'approve_grant_request' | 'reject_grant_request';
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly value: unknown;
}

/** What an answer did: for the run's events (the decision as a tool call), its log and tests. */
export interface Answered {
  readonly interruptId: string;
  readonly grant_request_id: string;
  readonly outcome: 'approved' | 'rejected' | 'dismissed';
  readonly grant_id?: string;
  /** Absent for a dismissal, which decides nothing. */
  readonly call?: DecisionCall;
}

type Planned = { readonly answer: ResumeAnswer; readonly request: GrantRequestRecord } & (
  | { readonly kind: 'dismiss' }
  | { readonly kind: 'approve'; readonly narrow?: z.infer<typeof NarrowInput> }
  | { readonly kind: 'reject' }
);

/**
 * Answers a thread's open interrupts. Every answer is checked before any is applied: an
 * unknown or another person's id, a decided or expired request answered `resolved`, a bad
 * payload, or a resume that leaves an open interrupt unanswered fails the whole resume with
 * nothing applied. `open` is what the thread's last run ended with (undefined when this
 * instance does not know the thread: then only the answers given are checked). Cancelling a
 * request decided meanwhile on another surface is fine: it applies nothing.
 */
export async function answerInterrupts(
  deps: Deps,
  caller: Extract<Caller, { kind: 'subject' }>,
  answers: readonly ResumeAnswer[],
  open: ReadonlySet<string> | undefined,
): Promise<Result<Answered[]>> {
  const given = new Set(answers.map((a) => a.interruptId));
  if (given.size !== answers.length) return fail('invalid_request', 'the resume answers an interrupt twice');
  const missed = [...(open ?? [])].filter((id) => !given.has(id));
  if (missed.length > 0) {
    return fail(
      'invalid_request',
      `the resume does not answer every open interrupt: ${missed.join(', ')} unanswered`,
    );
  }
  const plan: Planned[] = [];
  for (const answer of answers) {
    const planned = await planAnswer(deps, caller, answer, open);
    if (!planned.ok) return planned;
    plan.push(planned.value);
  }
  const done: Answered[] = [];
  for (const step of plan) {
    const applied = await apply(deps, caller, step);
    // Only a race (the request decided between the check and now) fails here.
    if (!applied.ok) return applied;
    done.push(applied.value);
  }
  return ok(done);
}

async function planAnswer(
  deps: Deps,
  caller: Extract<Caller, { kind: 'subject' }>,
  answer: ResumeAnswer,
  open: ReadonlySet<string> | undefined,
): Promise<Result<Planned>> {
  const id = answer.interruptId;
  const unknown = fail('invalid_request', `there is no open interrupt "${id}" to resume`);
  if (!id.startsWith(PREFIX) || (open !== undefined && !open.has(id))) return unknown;
  const request = await deps.store.getGrantRequest(id.slice(PREFIX.length));
  if (!request || request.subject_id !== caller.subjectId || request.package) return unknown;
  if (answer.status === 'cancelled') return ok({ answer, request, kind: 'dismiss' });
  if (request.status !== 'pending') {
    return fail('conflict', `the consent request of interrupt "${id}" has already been decided`);
  }
  if (Date.parse(request.expires_at) <= deps.clock().getTime()) {
    return fail('conflict', `the consent request of interrupt "${id}" has expired; cancel the interrupt`);
  }
  const decision = parseInput(Decision, answer.payload, `the payload of interrupt "${id}"`);
  if (!decision.ok) return decision;
  switch (decision.value.action) {
    case 'approve':
      return ok({ answer, request, kind: 'approve' });
    case 'reject':
      return ok({ answer, request, kind: 'reject' });
    case 'edit': {
      // The consent page's narrowing rules, checked now so that a wider "edit" applies nothing.
      const narrowed = narrowDraft(request.draft, decision.value.grant, deps.clock());
      if (!narrowed.ok) return narrowed;
      return ok({ answer, request, kind: 'approve', narrow: decision.value.grant });
    }
  }
}

async function apply(deps: Deps, caller: Caller, step: Planned): Promise<Result<Answered>> {
  const base = { interruptId: step.answer.interruptId, grant_request_id: step.request.grant_request_id };
  if (step.kind === 'dismiss') return ok({ ...base, outcome: 'dismissed' });
  if (step.kind === 'reject') {
    const args = { grant_request_id: base.grant_request_id };
    const r = await rejectGrantRequest(deps, caller, args);
    if (!r.ok) return r;
    return ok({
      ...base,
      outcome: 'rejected',
      call: { name: 'reject_grant_request', arguments: args, value: r.value },
    });
  }
  const args = { grant_request_id: base.grant_request_id, ...(step.narrow ? { narrow: step.narrow } : {}) };
  const r = await approveGrantRequest(deps, caller, args);
  if (!r.ok) return r;
  return ok({
    ...base,
    outcome: 'approved',
    ...(r.value.grant_id ? { grant_id: r.value.grant_id } : {}),
    call: { name: 'approve_grant_request', arguments: args, value: r.value },
  });
}

/**
 * Which interrupts each thread has open, and which it dismissed, per person, in memory: a
 * thread is a client's conversation with this instance. Bounded: the oldest threads are
 * forgotten first (a forgotten thread's resume is then checked answer by answer).
 */
export class InterruptBook {
  readonly #threads = new Map<string, { open: Set<string>; dismissed: Set<string> }>();
  readonly #limit: number;
  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  get(subjectId: string, threadId: string) {
    return this.#threads.get(`${subjectId}\u0000${threadId}`);
  }

  thread(subjectId: string, threadId: string) {
    const key = `${subjectId}\u0000${threadId}`;
    let entry = this.#threads.get(key);
    if (entry === undefined) {
      entry = { open: new Set(), dismissed: new Set() };
      if (this.#threads.size >= this.#limit)
        this.#threads.delete(this.#threads.keys().next().value as string);
    } else this.#threads.delete(key); // re-inserted: the newest
    this.#threads.set(key, entry);
    return entry;
  }
}
