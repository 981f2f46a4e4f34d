import type { PpxFailure } from '../../model/errors.ts';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { credentialEnded } from '../shared/stream-credential.ts';
import { rpcErrorOf } from './rpc-errors.ts';

// Revocation takes effect on the next request, and a stream is many answers: before each event
// of a task stream the grant is read again, so a grant revoked (or expired) while the stream is
// open ends it, with the token error in place of the next event (issue 13, item 3).

/**
 * A task stream that ends the moment its grant does: before each event the grant is read again,
 * and a revoked or expired grant ends the stream with a final `failed` status of the task
 * (carrying the PPX error body), in the stream's own A2A version.
 */
export async function* guarded(
  deps: Deps,
  caller: GrantCaller,
  events: AsyncGenerator<unknown, void, undefined>,
  version: '1.0' | '0.3',
) {
  for await (const event of events) {
    const ended = await grantEnded(deps, caller);
    if (ended !== undefined) {
      yield failedStatus(event, version, ended, deps.clock());
      await events.return(undefined);
      return;
    }
    yield event;
  }
}

type Envelope = { id?: string | number | null; result?: Record<string, unknown> };

/** The task an event is about: its id and context, in either version's JSON. */
function taskOf(
  result: Record<string, unknown> | undefined,
): { taskId: string; contextId: string } | undefined {
  if (result === undefined) return undefined;
  const inner = (result.task ?? result.statusUpdate ?? result.artifactUpdate ?? result) as Record<
    string,
    unknown
  >;
  const taskId = typeof inner.taskId === 'string' ? inner.taskId : inner.id;
  const contextId = inner.contextId;
  return typeof taskId === 'string' && typeof contextId === 'string' ? { taskId, contextId } : undefined;
}

/** A final failed status update for the event's task (or the JSON-RPC error when none is named). */
function failedStatus(event: unknown, version: '1.0' | '0.3', failure: PpxFailure, at: Date): unknown {
  const envelope = event as Envelope;
  const id = envelope.id ?? null;
  const task = taskOf(envelope.result);
  if (task === undefined) return rpcErrorOf(id, failure);
  const body = { error: failure.code, error_description: failure.description };
  const timestamp = at.toISOString();
  if (version === '0.3') {
    const parts = [{ kind: 'data', data: body }];
    const message = { kind: 'message', messageId: `${task.taskId}:ended`, role: 'agent', parts };
    const status = { state: 'failed', message, timestamp };
    return { jsonrpc: '2.0', id, result: { kind: 'status-update', ...task, status, final: true } };
  }
  const parts = [{ data: body, mediaType: 'application/json' }];
  const message = { messageId: `${task.taskId}:ended`, ...task, role: 'ROLE_AGENT', parts };
  const status = { state: 'TASK_STATE_FAILED', message, timestamp };
  return { jsonrpc: '2.0', id, result: { statusUpdate: { ...task, status } } };
}

/** The grant's end, as every stream checks its credential (surfaces/shared/stream-credential.ts). */
function grantEnded(deps: Deps, caller: GrantCaller): Promise<PpxFailure | undefined> {
  return credentialEnded(deps, { kind: 'grant', caller });
}
