import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { ok, type Result } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import type { ResumeAnswer } from '../../operations/inbox/consent-interrupts.ts';

// What a inbox run is asked for: an AG-UI RunAgentInput (validated with the protocol's own zod
// schema, as its client validates what it is sent), and the PPX knobs it carries in
// `forwardedProps` (WIRE-NOTES §7).

/** `forwardedProps` of a inbox run; other members are a client's own and are ignored. */
const MAX_ACTIONS = 20;

const Id = z.string().min(1).max(300);
const ExplainTarget = z.union([
  z.strictObject({ claim_id: Id }),
  z.strictObject({ proposal_id: Id }),
  z.strictObject({ grant_id: Id }),
]);
export type ExplainTarget = z.infer<typeof ExplainTarget>;

/** An action as asked for; its name and arguments are checked against the catalog (actions.ts). */
export interface ActionRequest {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

const InboxStreamProps = z.looseObject({
  /** False: a one-shot run (RUN_STARTED, STATE_SNAPSHOT, RUN_FINISHED). */
  follow: z.boolean({ error: 'forwardedProps.follow is true or false' }).optional(),
  /** The `seq` of the state the client holds, to resume from. */
  since: z
    .number({ error: 'forwardedProps.since is the seq of the state you hold, a non-negative integer' })
    .int({ error: 'forwardedProps.since is the seq of the state you hold, a non-negative integer' })
    .min(0, { error: 'forwardedProps.since is the seq of the state you hold, a non-negative integer' })
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
  /** The person's actions, run in order as tools (surfaces/agui/actions.ts). */
  actions: z
    .array(
      z.strictObject({
        name: z.string({ error: 'each action has a name, the operation to run' }).min(1).max(100),
        arguments: z.record(z.string(), z.unknown()).optional(),
      }),
      { error: 'forwardedProps.actions is a list of {name, arguments}' },
    )
    .max(MAX_ACTIONS, { error: `at most ${MAX_ACTIONS} actions in one run` })
    .optional(),
  /** What to explain in words (TEXT_MESSAGE_*): claims, proposals or grants of the state, by id. */
  explain: z
    .array(ExplainTarget, {
      error: 'forwardedProps.explain is a list of {claim_id}, {proposal_id} or {grant_id}',
    })
    .max(MAX_ACTIONS, { error: `at most ${MAX_ACTIONS} explanations in one run` })
    .optional(),
});

export interface InboxRunInput {
  readonly threadId: string;
  readonly runId: string;
  readonly follow: boolean;
  readonly since?: number;
  /** `RunAgentInput.state`: what the client holds now (HttpAgent sends it on every run). */
  readonly held?: unknown;
  /** The answers to the thread's open interrupts (consent requests), checked by the inbox run. */
  readonly resume: readonly ResumeAnswer[];
  readonly actions: readonly ActionRequest[];
  readonly explain: readonly ExplainTarget[];
}

/** The inbox run a parsed JSON body asks for, or an invalid_request naming what is wrong. */
export function inboxRunInput(body: unknown): Result<InboxRunInput> {
  const input = parseInput(RunAgentInputSchema, body, 'the RunAgentInput');
  if (!input.ok) return input;
  const props = parseInput(InboxStreamProps.optional(), input.value.forwardedProps, 'forwardedProps');
  if (!props.ok) return props;
  return ok({
    threadId: input.value.threadId,
    runId: input.value.runId,
    follow: props.value?.follow ?? true,
    ...(props.value?.since !== undefined ? { since: props.value.since } : {}),
    ...(input.value.state !== undefined ? { held: input.value.state } : {}),
    resume: (input.value.resume ?? []).map((r) => ({
      interruptId: r.interruptId,
      status: r.status,
      ...(r.payload !== undefined ? { payload: r.payload } : {}),
    })),
    actions: (props.value?.actions ?? []).map((a) => ({ name: a.name, arguments: a.arguments ?? {} })),
    explain: props.value?.explain ?? [],
  });
}
