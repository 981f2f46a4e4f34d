import type { A2aTaskRecord } from '../model/a2a-task.ts';
import type { A2aTaskPage, A2aTaskQuery } from '../store/store.ts';
import type { Deps } from './deps.ts';

// The A2A preference agent's tasks, kept in the provider's store (issue 13: they survive a
// restart and are visible from every instance). Each task is owned by the grant it was made
// under: only that grant's caller finds it (a task of another grant is not there, as a missing
// one is not), so a grantee lists its own tasks only, and a revoked grant's tasks are out of
// reach with its token. The A2A surface adapts these to the SDK's TaskStore.

/** Saves a task whole, in its own transaction; a task id of another grant is refused (IdConflictError). */
export async function saveA2aTask(deps: Deps, record: A2aTaskRecord): Promise<void> {
  await deps.store.transaction((tx) => tx.putA2aTask(record));
}

export function loadA2aTask(deps: Deps, taskId: string, owner: string): Promise<A2aTaskRecord | undefined> {
  return deps.store.getA2aTask(taskId, owner);
}

export function listA2aTasks(deps: Deps, owner: string, query: A2aTaskQuery): Promise<A2aTaskPage> {
  return deps.store.listA2aTasks(owner, query);
}
