import type { GrantRequestDraft } from '../../../src/model/grant-request.ts';
import { type ChosenNarrowing, narrowingOfChoice } from '../../../src/policy/narrowing.ts';

// The ConsentRequestForm's choices (`/choice` of its data model, docs/a2ui.md) as the `grant`
// narrowing of the resume payload `{action: 'edit', grant}` (docs/ag-ui.md). The diff itself is
// the consent page's too (policy/narrowing.ts#narrowingOfChoice); here only the form's shape is
// read: ticks by index, the chosen policy as a one-item list, the expiry as a day. Whether a
// narrowing is allowed is the provider's decision (policy/narrowing.ts#narrowDraft); a wider one
// is refused there, in words.

export interface Choice {
  readonly purposes?: Record<string, boolean>;
  readonly domains?: Record<string, boolean>;
  readonly namespaces?: Record<string, boolean>;
  readonly keys?: Record<string, boolean>;
  readonly operations?: Record<string, boolean>;
  readonly expires_at?: string;
  readonly cross_domain_transfer?: readonly string[] | string;
  readonly writeback_policy?: readonly string[] | string;
}

const kept = (asked: readonly string[], boxes: Record<string, boolean> | undefined) =>
  asked.filter((_, i) => boxes?.[String(i)] !== false);

const one = (v: readonly string[] | string | undefined) =>
  (Array.isArray(v) ? v[0] : v) as string | undefined;

/** The end of the chosen day (UTC), if it is another day than asked; a later one is refused. */
function expiryOf(draft: GrantRequestDraft, day: string | undefined): string | undefined {
  if (day === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(day) || day === draft.expires_at.slice(0, 10))
    return undefined;
  return new Date(Date.parse(`${day}T23:59:59.000Z`)).toISOString();
}

export function grantNarrowing(draft: GrantRequestDraft, choice: Choice): ChosenNarrowing {
  // The form offers keys only when the request names them (consent-request-form.ts).
  const offered = draft.allowed_claim_keys ?? [];
  return narrowingOfChoice(
    draft,
    {
      purposes: kept(draft.purposes, choice.purposes),
      allowed_domains: kept(draft.allowed_domains, choice.domains),
      allowed_namespaces: kept(draft.allowed_namespaces, choice.namespaces),
      allowed_claim_keys: kept(offered, choice.keys),
      allowed_operations: kept(draft.allowed_operations, choice.operations),
      cross_domain_transfer: one(choice.cross_domain_transfer),
      writeback_policy: one(choice.writeback_policy),
      expires_at: expiryOf(draft, choice.expires_at),
    },
    offered,
  );
}
