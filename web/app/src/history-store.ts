import type { ClaimHistoryEntry } from '../../../src/model/claim-history.ts';
import type { AppContext } from './context.ts';

// Every change to the person's claims (list_claim_history, page by page), read once per state the
// stream reports: the history and conflict views read it to say who said what and when.

let held: { seq: number; entries: ClaimHistoryEntry[] } | undefined;
let loading: number | undefined;

/** The history as of the current state, or undefined while it loads (the view is drawn again then). */
export function claimHistory(ctx: AppContext): readonly ClaimHistoryEntry[] | undefined {
  const seq = ctx.state()?.seq;
  if (seq === undefined) return undefined;
  if (held?.seq === seq) return held.entries;
  if (loading !== seq) void load(ctx, seq);
  return held?.entries;
}

async function load(ctx: AppContext, seq: number): Promise<void> {
  loading = seq;
  const entries: ClaimHistoryEntry[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = (await ctx.act('list_claim_history', {
        limit: 500,
        ...(cursor !== undefined ? { cursor } : {}),
      })) as { entries: ClaimHistoryEntry[]; next_cursor?: string } | undefined;
      if (page === undefined) return;
      entries.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    held = { seq, entries };
  } finally {
    if (loading === seq) loading = undefined;
  }
  ctx.redraw();
}
