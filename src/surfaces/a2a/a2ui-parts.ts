import type { Part, Task } from '@a2a-js/sdk';
import type { Claim } from '../../model/claim.ts';
import { claimCard, surfaceMessages } from '../shared/a2ui/index.ts';

// The A2UI extension of A2A (A2UI v0.8, "A2UI over A2A"): a client that asks for it (the
// `A2A-Extensions` header naming A2UI_EXTENSION) gets, beside the PPX object, the A2UI messages
// that draw it, each as a data part marked `metadata.mimeType: application/json+a2ui`. Made by the
// one component module the person's web app uses too (surfaces/shared/a2ui/): a claim result
// (an effective profile, a query) is one ClaimCard surface per claim. Other results have no
// component of their own and go without.

export const A2UI_EXTENSION = 'https://a2ui.org/a2a-extension/a2ui/v0.8';
export const A2UI_MIME = 'application/json+a2ui';

/** Whether the request asked for the A2UI extension (A2A 1.0 `A2A-Extensions`, 0.3 `X-A2A-Extensions`). */
export function asksForA2ui(header: string | undefined): boolean {
  return (header ?? '').split(',').some((uri) => uri.trim() === A2UI_EXTENSION);
}

export function a2uiParts(value: unknown, now: Date): Part[] {
  const claims = (value as { claims?: unknown } | null)?.claims;
  if (!Array.isArray(claims)) return [];
  return (claims as Claim[]).flatMap((claim) =>
    surfaceMessages(claimCard(claim, now)).map((message) => ({
      content: { $case: 'data' as const, value: message },
      metadata: { mimeType: A2UI_MIME },
      filename: '',
      mediaType: A2UI_MIME,
    })),
  );
}

/** Whether a part is one of the A2UI messages a2uiParts makes. */
function isDrawing(part: Part): boolean {
  return part.mediaType === A2UI_MIME || part.metadata?.['mimeType'] === A2UI_MIME;
}

/**
 * The task as it is stored: its results without their A2UI parts, which are the bulk of a drawn
 * claim result (issue 22 item 11: a 200 KB claim drew 3 MB) and are made again from the PPX
 * object on each read (drawn).
 */
export function undrawn(task: Task): Task {
  return {
    ...task,
    artifacts: task.artifacts.map((a) => ({ ...a, parts: a.parts.filter((part) => !isDrawing(part)) })),
  };
}

/** A stored task with the A2UI parts of each result drawn again, at `now`, after its PPX object. */
export function drawn(task: Task, now: Date): Task {
  return {
    ...task,
    artifacts: task.artifacts.map((a) => {
      const [first, ...rest] = a.parts.filter((part) => !isDrawing(part));
      if (first?.content?.$case !== 'data') return a;
      return { ...a, parts: [first, ...a2uiParts(first.content.value, now), ...rest] };
    }),
  };
}
