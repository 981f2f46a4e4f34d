import { setImmediate as nextTurn } from 'node:timers/promises';
import type { A2aTaskRecord } from '../../model/a2a-task.ts';
import { type Deletion, deletionReaches } from '../../policy/deletion-reach.ts';
import { reachOf } from '../../policy/scope.ts';
import { mappingApplies } from '../../policy/trait-mapping.ts';
import type { A2aTaskPage, A2aTaskQuery, StoreTx } from '../../store/store.ts';
import type { Deps, TxDeps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

// The A2A preference agent's tasks, kept in the provider's store (issue 13: they survive a
// restart and are visible from every instance). Each task is owned by the grant it was made
// under: only that grant's caller finds it (a task of another grant is not there, as a missing
// one is not), so a grantee lists its own tasks only, and a revoked grant's tasks are out of
// reach with its token. The A2A surface adapts these to the SDK's TaskStore.
//
// A task holds what its grantee was shown, so it does not outlive its use: its result is given
// back for 10 minutes only (surfaces/a2a/task-store.ts), a person's deletion removes the tasks of
// the grants that could see what was deleted, and the rows themselves go after TASK_RETENTION_MS.

/** How long a task row is kept after it was last saved. */
export const TASK_RETENTION_MS = 24 * 3_600_000;
const PRUNE_CHUNK = 1000;
/**
 * What one grant may keep (issue 22 item 11): at most this many tasks and this many bytes of task
 * bodies; saving a task removes the grant's oldest beyond either, but never the task just saved.
 */
export const TASK_CAP_COUNT = 100;
export const TASK_CAP_BYTES = 2 * 1024 * 1024;

/**
 * Saves a task whole, in its own transaction, and trims its grant's tasks to the cap
 * (trimA2aTasksOf); a task id of another grant is refused (IdConflictError).
 */
export async function saveA2aTask(deps: Deps, record: A2aTaskRecord): Promise<void> {
  // A task is its grant's subject's data: its save waits only for that subject's writes.
  const grant = await deps.store.getGrant(record.owner);
  await deps.store.transaction(
    async (tx) => {
      await tx.putA2aTask(record);
      await trimA2aTasksOf(tx, record.owner, record.task_id);
    },
    // A task's body is bounded (a result), and the trim deletes within TASK_CAP_BYTES: small.
    // Neither touches the audit log: unaudited (the send's read was audited on its own).
    grant === undefined ? undefined : { subject: grant.subject_id, small: true, unaudited: true },
  );
}

/** Keeps a grant's tasks within TASK_CAP_COUNT and TASK_CAP_BYTES, its oldest going first; `keep` stays. */
function trimA2aTasksOf(
  store: Pick<StoreTx, 'trimA2aTasksOf'>,
  owner: string,
  keep: string,
): Promise<number> {
  return store.trimA2aTasksOf(owner, { tasks: TASK_CAP_COUNT, bytes: TASK_CAP_BYTES }, keep);
}

export function loadA2aTask(deps: Deps, taskId: string, owner: string): Promise<A2aTaskRecord | undefined> {
  return deps.store.getA2aTask(taskId, owner);
}

export function listA2aTasks(deps: Deps, owner: string, query: A2aTaskQuery): Promise<A2aTaskPage> {
  return deps.store.listA2aTasks(owner, query);
}

/**
 * Inside a deletion's transaction: the tasks that could hold what is deleted go with it, those of
 * the subject's grants that could see it (policy/deletion-reach.ts) and those that drew on such a
 * grant as their counterpart (a compatibility view of another subject's grant), and no others,
 * so a grantee cannot tell that something outside its grant was deleted (issue 22 item 1).
 * `'all'`: the whole profile went, or was replaced by an import; every grant of the subject
 * loses its tasks.
 */
export async function forgetA2aTasksOf(
  tx: TxDeps,
  subjectId: string,
  deletion: Deletion | 'all',
): Promise<void> {
  for (const grant of await tx.store.listGrantsBySubject(subjectId)) {
    if (
      deletion === 'all' ||
      deletionReaches(reachOf(grant), deletion, await approvedSources(tx, grant.grant_id))
    ) {
      await tx.store.deleteA2aTasksOf(grant.grant_id);
      // Another subject's compatibility views drew on this grant's reach too.
      await tx.store.deleteA2aTasksReading(grant.grant_id);
    }
  }
}

/** The source domains whose mapped traits the person let this grant read (SPEC §13.2). */
async function approvedSources(tx: TxDeps, grantId: string): Promise<ReadonlySet<string>> {
  const reviews = await tx.store.listCrossDomainReviewsByGrant(grantId);
  return new Set(reviews.filter((r) => mappingApplies(r.status)).flatMap((r) => r.source_domains));
}

/** Removes the task rows older than TASK_RETENTION_MS, in chunks of their own transactions. */
export async function pruneA2aTaskRows(deps: Deps): Promise<number> {
  const before = new Date(deps.clock().getTime() - TASK_RETENTION_MS).toISOString();
  let removed = 0;
  for (;;) {
    const n = await inTransaction(deps, (tx) => tx.store.pruneA2aTasks(before, PRUNE_CHUNK));
    removed += n;
    if (n < PRUNE_CHUNK) return removed;
    await nextTurn();
  }
}

/** Prunes task rows now and every hour while the provider runs; `stop` ends it. */
export function startA2aTaskRetention(deps: Deps, log: (message: string) => void): { stop(): void } {
  const run = () =>
    pruneA2aTaskRows(deps).then(
      (n) => {
        if (n > 0) log(`A2A task retention: removed ${n} tasks last saved over a day ago`);
      },
      (e: unknown) =>
        log(`A2A task retention failed, will try again: ${e instanceof Error ? e.message : String(e)}`),
    );
  void run();
  const timer = setInterval(() => void run(), 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
