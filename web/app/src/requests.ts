import { HttpAgent } from '@ag-ui/client';
import type { ChosenNarrowing } from '../../../src/policy/narrowing.ts';
import { sentence } from './actions.ts';
import {
  type ConsentInterrupt,
  consentInterrupt,
  newThreadId,
  REVIEW_URL,
  sessionHeaders,
} from './review-stream.ts';

// Consent requests waiting for the person, read and decided over the review stream. A one-shot
// run (`follow: false`) on a fresh thread ends with an interrupt per pending request; answering
// one is a resume run on that same thread, the others answered `cancelled` (nothing decided), as
// HttpAgent insists that every open interrupt is answered (docs/ag-ui.md).

export type Decision =
  | { action: 'approve' }
  | { action: 'reject' }
  | { action: 'edit'; grant: ChosenNarrowing };

interface Probe {
  readonly agent: HttpAgent;
  readonly requests: ConsentInterrupt[];
}

async function probe(csrf: string): Promise<Probe> {
  const agent = new HttpAgent({
    url: REVIEW_URL,
    headers: sessionHeaders(csrf),
    threadId: newThreadId('requests'),
  });
  let failure: string | undefined;
  await agent.runAgent(
    { forwardedProps: { follow: false } },
    {
      onRunErrorEvent: ({ event }) => {
        failure = event.message;
      },
    },
  );
  if (failure !== undefined) throw new Error(sentence(failure));
  const requests = (agent.pendingInterrupts ?? [])
    .map(consentInterrupt)
    .filter((i): i is ConsentInterrupt => i !== undefined);
  return { agent, requests };
}

/** The consent requests waiting for the person now. */
export async function pendingRequests(csrf: string): Promise<ConsentInterrupt[]> {
  return (await probe(csrf)).requests;
}

/**
 * Decides one request: approve, narrow (`edit` with the narrowing) or reject, through the same
 * operations as the consent page. Throws with the provider's words when it is refused.
 */
export async function decideRequest(csrf: string, grantRequestId: string, decision: Decision): Promise<void> {
  const { agent } = await probe(csrf);
  const open = agent.pendingInterrupts ?? [];
  const target = open.find((i) => consentInterrupt(i)?.request.grant_request_id === grantRequestId);
  if (!target) throw new Error('This request was already answered, or it has expired.');
  const resume = open.map((i) =>
    i === target
      ? { interruptId: i.id, status: 'resolved' as const, payload: decision }
      : { interruptId: i.id, status: 'cancelled' as const },
  );
  let failure: string | undefined;
  await agent.runAgent(
    { forwardedProps: { follow: false }, resume },
    {
      onRunErrorEvent: ({ event }) => {
        failure = event.message;
      },
      // The decision is reported as a tool call (approve_grant_request / reject_grant_request).
      onToolCallResultEvent: ({ event }) => {
        const result = parse(event.content);
        if (result?.ok === false) failure = result.error_description ?? 'the decision was refused';
      },
    },
  );
  if (failure !== undefined) throw new Error(sentence(failure));
}

function parse(content: unknown): { ok?: boolean; error_description?: string } | undefined {
  try {
    return typeof content === 'string' ? JSON.parse(content) : undefined;
  } catch {
    return undefined;
  }
}
