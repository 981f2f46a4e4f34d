import { HttpAgent } from '@ag-ui/client';
import { newThreadId, REVIEW_URL, sessionHeaders } from './review-stream.ts';

// The person's actions as runs of the review stream (docs/web-app.md, "Actions"): a one-shot run
// on a thread of its own whose `forwardedProps.actions` name catalog operations; each answers a
// TOOL_CALL_RESULT whose content is `{"ok":true,"value":…}` or `{"ok":false,"error",
// "error_description"}`. A malformed action fails the whole run (RUN_ERROR), nothing applied.

interface ActionCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

export class ActionError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

/** Runs the actions in order; each result's value, or an ActionError in words for the first refused. */
export async function runActions(csrf: string, actions: readonly ActionCall[]): Promise<unknown[]> {
  const agent = new HttpAgent({
    url: REVIEW_URL,
    headers: sessionHeaders(csrf),
    threadId: newThreadId('actions'),
  });
  const results: { ok: boolean; value?: unknown; error?: string; error_description?: string }[] = [];
  let failure: string | undefined;
  try {
    await agent.runAgent(
      { forwardedProps: { follow: false, actions } },
      {
        onToolCallResultEvent: ({ event }) => {
          results.push(parseResult(typeof event.content === 'string' ? event.content : ''));
        },
        onRunErrorEvent: ({ event }) => {
          failure = event.message;
        },
      },
    );
  } catch (e) {
    const status = (e as { status?: number }).status;
    throw new ActionError(
      status === 401
        ? 'You are signed out. Sign in again, then try once more.'
        : 'The request did not reach the server. Check your connection and try again.',
      'network',
    );
  }
  if (failure !== undefined) throw new ActionError(sentence(failure), 'run_error');
  if (results.length < actions.length)
    throw new ActionError('The server did not answer every request. Try again.', 'incomplete');
  const refused = results.find((r) => !r.ok);
  if (refused)
    throw new ActionError(
      sentence(refused.error_description ?? 'That was refused.'),
      refused.error ?? 'refused',
    );
  return results.map((r) => r.value);
}

/** One action's value. */
export async function runAction(
  csrf: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<unknown> {
  const [value] = await runActions(csrf, [{ name, arguments: args }]);
  return value;
}

function parseResult(content: string): {
  ok: boolean;
  value?: unknown;
  error?: string;
  error_description?: string;
} {
  try {
    return JSON.parse(content);
  } catch {
    return {
      ok: false,
      error: 'server_error',
      error_description: 'the server answered something this page cannot read',
    };
  }
}

/** The provider's descriptions are lower case clauses; a person reads sentences. */
export function sentence(words: string): string {
  const s = words.trim();
  if (s === '') return 'Something went wrong.';
  const first = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** What the stream explains (docs/ag-ui.md, "Explanations"). */
export type Explainable = { claim_id: string } | { grant_id: string } | { proposal_id: string };

/** The explanation of one thing, in sentences, as the stream's assistant message says it. */
export async function explain(csrf: string, what: Explainable): Promise<string> {
  const agent = new HttpAgent({
    url: REVIEW_URL,
    headers: sessionHeaders(csrf),
    threadId: newThreadId('explain'),
  });
  let text = '';
  let failure: string | undefined;
  try {
    await agent.runAgent(
      { forwardedProps: { follow: false, explain: [what] } },
      {
        onTextMessageContentEvent: ({ event }) => {
          text += event.delta;
        },
        onRunErrorEvent: ({ event }) => {
          failure = event.message;
        },
      },
    );
  } catch {
    throw new ActionError('The explanation did not arrive. Check your connection and try again.', 'network');
  }
  if (failure !== undefined) throw new ActionError(sentence(failure), 'run_error');
  return text.trim() === '' ? 'There is nothing more to say about this.' : text.trim();
}
