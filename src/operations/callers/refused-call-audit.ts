import type { GrantRecord } from '../../model/grant-record.ts';
import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';

// A call refused because its grant had ended (issue 26, item 3): the app's token named a grant the
// person revoked, or one past its expiry, so it reached nothing; the person's log says so, under
// that grant's own subject (never anyone else's: the token's client is the grant's grantee,
// checked before this). Bounded, so that an app calling in a loop cannot fill the log: at most one
// such entry per grant per minute. This process remembers the grants it logged lately (cheap, and
// safe to lose); then the store is asked whether an entry of the same minute exists (another
// instance's, or one from before a restart). Two instances racing may each write one.

/** At most one entry per grant in this span. */
export const REFUSED_CALL_SPAN_MS = 60_000;

/** The `detail` of such an entry, in the `<label>: <code>` form every refusal's detail has. */
export function refusedCallDetail(code: 'grant_revoked' | 'grant_expired'): string {
  return `call after the grant ended: ${code}`;
}

const MEMO_LIMIT = 10_000;
const lately = new WeakMap<object, Map<string, number>>();

export async function auditRefusedCall(
  deps: Deps,
  grant: GrantRecord,
  code: 'grant_revoked' | 'grant_expired',
  now: Date,
): Promise<void> {
  let memo = lately.get(deps.store);
  if (memo === undefined) {
    memo = new Map();
    lately.set(deps.store, memo);
  }
  const last = memo.get(grant.grant_id);
  if (last !== undefined && now.getTime() - last < REFUSED_CALL_SPAN_MS) return;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(grant.grant_id, now.getTime());
  const detail = refusedCallDetail(code);
  const recent = await deps.store.listAudit({
    subject_id: grant.subject_id,
    grant_id: grant.grant_id,
    action: 'denied',
    since: new Date(now.getTime() - REFUSED_CALL_SPAN_MS).toISOString(),
    order: 'newest',
    limit: 5,
  });
  if (recent.events.some((e) => e.detail === detail)) return;
  await recordAudit(
    deps,
    { kind: 'grantee', id: grant.grantee_id },
    grant.subject_id,
    { action: 'denied', outcome: 'denied', grantId: grant.grant_id, detail },
    now,
  );
}
