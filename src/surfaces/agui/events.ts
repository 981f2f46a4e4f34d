import {
  EventType,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type StateDeltaEvent,
  type StateSnapshotEvent,
} from '@ag-ui/core';
import type { PpxFailure } from '../../model/errors.ts';
import type { InboxUpdate } from '../../operations/inbox/inbox-stream.ts';

// Review updates as AG-UI 1.0 events (WIRE-NOTES §7). The types come from @ag-ui/core, so the
// compiler holds each event to the protocol's shape; the client validates them again.

export interface RunIds {
  readonly threadId: string;
  readonly runId: string;
}

export function runStarted(ids: RunIds, at: Date): RunStartedEvent {
  return { type: EventType.RUN_STARTED, threadId: ids.threadId, runId: ids.runId, timestamp: at.getTime() };
}

export function updateEvent(update: InboxUpdate, at: Date): StateSnapshotEvent | StateDeltaEvent {
  return update.kind === 'snapshot'
    ? { type: EventType.STATE_SNAPSHOT, snapshot: update.state, timestamp: at.getTime() }
    : { type: EventType.STATE_DELTA, delta: update.delta, timestamp: at.getTime() };
}

/** The person ended the inbox run, or the provider stopped following: a success, not a failure. */
export function runFinished(ids: RunIds, at: Date): RunFinishedEvent {
  return {
    type: EventType.RUN_FINISHED,
    threadId: ids.threadId,
    runId: ids.runId,
    outcome: { type: 'success' },
    timestamp: at.getTime(),
  };
}

/**
 * The one place a failure becomes AG-UI's RUN_ERROR (STYLE §4): the PPX code, and a description
 * meant for a person. An unexpected exception reaches here only as the generic server_error.
 */
export function runError(failure: PpxFailure, at: Date): RunErrorEvent {
  return {
    type: EventType.RUN_ERROR,
    code: failure.code,
    message: failure.description,
    timestamp: at.getTime(),
  };
}
