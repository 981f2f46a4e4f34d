import type { AnyDeps, Deps } from '../deps.ts';

// Live audit notices (issue 26, item 3; docs/web-app.md, "The activity log"): an audit append is
// not a change (store.ts: every read makes one, group-committed on its own, with no outbox row),
// so the change feed never tells a person's open page that an app read their profile or was
// refused. This tells it instead: after an entry about a subject is appended, every listener of
// that subject (the person's following review runs) hears "something was appended", and re-reads
// the log's newest page. A notice is only a hint, safe to lose: it carries nothing of the entry.
// It is known to the process that appended the entry only; on several instances a page learns
// of another instance's entries at its next change event (docs/web-app.md says so).

type Listener = () => void;

/** Per store (a test starts several providers in one process), per subject, its listeners. */
const listeners = new WeakMap<object, Map<string, Set<Listener>>>();

/** Tells the subject's listeners that an entry about them was appended (and committed). */
export function noticeAuditAppended(deps: Pick<AnyDeps, 'store'>, subjectId: string): void {
  const heard = listeners.get(deps.store)?.get(subjectId);
  if (heard === undefined) return;
  for (const listener of heard) listener();
}

/**
 * Calls `listener` after each entry about the subject is appended; returns the way to stop. The
 * subject's own, and only theirs: the caller checked who is asking (a person's own review run).
 */
export function followAuditAppends(
  deps: Pick<Deps, 'store'>,
  subjectId: string,
  listener: Listener,
): () => void {
  let bySubject = listeners.get(deps.store);
  if (bySubject === undefined) {
    bySubject = new Map();
    listeners.set(deps.store, bySubject);
  }
  let heard = bySubject.get(subjectId);
  if (heard === undefined) {
    heard = new Set();
    bySubject.set(subjectId, heard);
  }
  heard.add(listener);
  return () => {
    heard.delete(listener);
    if (heard.size === 0 && bySubject.get(subjectId) === heard) bySubject.delete(subjectId);
  };
}
