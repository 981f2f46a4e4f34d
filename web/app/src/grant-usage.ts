import type { AppContext } from './context.ts';

// When each of the person's grants was last used (list_grant_usage), for the home view and the
// access cards: asked once per set of active grants, and again whenever that set changes.

const usage: { forKey?: string; byGrant: Map<string, string | null> } = { byGrant: new Map() };

/** The last use of a grant: a time, null for never, undefined while not known. */
export function lastUsed(ctx: AppContext, grantId: string): string | null | undefined {
  const grants = ctx.state()?.active_grants ?? [];
  const key = JSON.stringify(grants.map((g) => g.grant_id));
  if (ctx.state() !== undefined && usage.forKey !== key) void load(ctx, key);
  return usage.byGrant.get(grantId);
}

/** What a section that shows last uses must be redrawn for. */
export function usageKey(): string {
  return JSON.stringify([...usage.byGrant]);
}

async function load(ctx: AppContext, key: string): Promise<void> {
  usage.forKey = key;
  const out = (await ctx.act('list_grant_usage', {})) as
    | { usage: { grant_id: string; last_used_at: string | null }[] }
    | undefined;
  if (out === undefined) return;
  usage.byGrant = new Map(out.usage.map((u) => [u.grant_id, u.last_used_at]));
  ctx.redraw();
}
