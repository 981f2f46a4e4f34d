import { type CustomEvent, EventType } from '@ag-ui/core';

// The person's log grew (issue 26, item 3; operations/audit/audit-notices.ts): a following review
// run says so with one CUSTOM event, and the page reads the log's newest entries itself, through
// the same listing as ever. The event carries no entry, only when it was sent. Appends come in
// bursts (an app reading in a loop), so a run says it at most once a second.

/** The CUSTOM event's name (docs/ag-ui.md, "The activity log, live"). */
export const AUDIT_APPENDED = 'ppx.audit_appended';

/** At least this long between two notices of one run. */
const AUDIT_NOTICE_GAP_MS = 1000;

export function auditAppendedEvent(at: Date): CustomEvent {
  return { type: EventType.CUSTOM, name: AUDIT_APPENDED, value: {}, timestamp: at.getTime() };
}

/**
 * `say` after a poke, at most once per gap: a poke within the gap after the last saying is said
 * once at its end, whatever else came meanwhile. `stop` drops what is waiting.
 */
export function coalesce(say: () => void, gapMs = AUDIT_NOTICE_GAP_MS): { poke(): void; stop(): void } {
  let last = Number.NEGATIVE_INFINITY;
  let waiting: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const fire = () => {
    waiting = undefined;
    if (stopped) return;
    last = Date.now();
    say();
  };
  return {
    poke() {
      if (stopped || waiting !== undefined) return;
      const wait = last + gapMs - Date.now();
      if (wait <= 0) fire();
      else waiting = setTimeout(fire, wait);
    },
    stop() {
      stopped = true;
      if (waiting !== undefined) clearTimeout(waiting);
    },
  };
}
