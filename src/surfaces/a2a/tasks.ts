import { type Artifact, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { PpxFailure } from '../../model/errors.ts';

// The A2A objects an answer is made of (WIRE-NOTES §6): a result is a completed task whose one
// artifact holds the PPX object as a data part; a PPX error is a failed task whose status
// message holds the PPX error body as a data part (and its words as text). In the SDK's own
// object spelling (`{content: {$case, value}}`, enums as numbers): the SDK writes each version's
// JSON from them.

const JSON_MEDIA = 'application/json';

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: JSON_MEDIA };
}

function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export interface TaskIds {
  readonly taskId: string;
  readonly contextId: string;
}

export function completedTask(
  ids: TaskIds,
  skill: string,
  value: unknown,
  history: Message[],
  at: Date,
  extra: Part[] = [],
): Task {
  const artifact: Artifact = {
    artifactId: `${ids.taskId}:result`,
    name: skill,
    description: `The ${skill} result, a PPX object`,
    parts: [dataPart(value), ...extra],
    metadata: undefined,
    extensions: [],
  };
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: at.toISOString() },
    artifacts: [artifact],
    history,
    metadata: { skill },
  };
}

/** The PPX error body, as every surface spells it: `{error, error_description}`. */
function errorBody(failure: PpxFailure): { error: string; error_description: string } {
  return { error: failure.code, error_description: failure.description };
}

export function failedTask(
  ids: TaskIds,
  skill: string | undefined,
  failure: PpxFailure,
  history: Message[],
  at: Date,
): Task {
  const message: Message = {
    messageId: `${ids.taskId}:error`,
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts: [dataPart(errorBody(failure)), textPart(failure.description)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: TaskState.TASK_STATE_FAILED, message, timestamp: at.toISOString() },
    artifacts: [],
    history,
    metadata: skill ? { skill } : undefined,
  };
}
