import type { AuditEvent } from '../../src/model/audit-event.ts';
import type { Store } from '../../src/store/store.ts';
import type { TestProvider } from './provider.ts';

// Reading a subject's audit log in tests (the demo subject's, of a test provider), by event ids
// rather than by time.

/** Every audit event about the demo subject so far, oldest first (all pages). */
export function auditLog(p: TestProvider): Promise<AuditEvent[]> {
  return subjectAuditLog(p.store, p.subjectId);
}

/** Every audit event about `subjectId` in `store`, oldest first (all pages). */
export async function subjectAuditLog(
  store: Pick<Store, 'listAudit'>,
  subjectId: string,
): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listAudit({
      subject_id: subjectId,
      limit: 500,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    events.push(...page.events);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return events;
}

/**
 * A point in the demo subject's audit log: the ids of every event written so far. Bounding by
 * event ids rather than by a timestamp is exact: an event written in the same millisecond as a
 * `new Date()` taken just after it (a grant created right before the call under test) is not
 * counted as the call's, and no event is missed when the provider's clock differs from the test's.
 */
export async function auditMark(p: TestProvider): Promise<ReadonlySet<string>> {
  return new Set((await auditLog(p)).map((e) => e.event_id));
}

/** Audit events about the demo subject written after `mark`, oldest first: reads are audited, so none means nothing was read. */
export async function auditAfter(p: TestProvider, mark: ReadonlySet<string>) {
  return (await auditLog(p)).filter((e) => !mark.has(e.event_id));
}
