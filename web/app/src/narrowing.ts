import type { GrantRequestDraft } from '../../../src/model/grant-request.ts';

// The ConsentRequestForm's choices (`/choice` of its data model, docs/a2ui.md) as the `grant`
// narrowing of the resume payload `{action: 'edit', grant}` (docs/ag-ui.md): only the fields the
// person changed, as the consent page does (surfaces/web/decision.ts). Whether a narrowing is
// allowed is the provider's decision (policy/narrowing.ts); a wider one is refused there, in words.

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

const differs = (asked: readonly string[], keep: readonly string[]) => keep.length !== asked.length;

const one = (v: readonly string[] | string | undefined) =>
  (Array.isArray(v) ? v[0] : v) as string | undefined;

const namespaceOf = (key: string) => (key.includes('.') ? key.slice(0, key.indexOf('.')) : 'core');

export function grantNarrowing(draft: GrantRequestDraft, choice: Choice): Record<string, unknown> {
  const grant: Record<string, unknown> = {};
  const lists = [
    ['purposes', draft.purposes, choice.purposes],
    ['allowed_domains', draft.allowed_domains, choice.domains],
    ['allowed_namespaces', draft.allowed_namespaces, choice.namespaces],
    ['allowed_operations', draft.allowed_operations, choice.operations],
  ] as const;
  for (const [name, asked, boxes] of lists) {
    const keep = kept(asked, boxes);
    if (differs(asked, keep)) grant[name] = keep;
  }
  if (draft.allowed_claim_keys !== undefined) {
    const namespaces = kept(draft.allowed_namespaces, choice.namespaces);
    const keys = kept(draft.allowed_claim_keys, choice.keys).filter((k) =>
      namespaces.includes(namespaceOf(k)),
    );
    if (differs(draft.allowed_claim_keys, keys)) grant['allowed_claim_keys'] = keys;
  }
  const cross = one(choice.cross_domain_transfer);
  if (cross !== undefined && cross !== draft.cross_domain_transfer) grant['cross_domain_transfer'] = cross;
  const writeback = one(choice.writeback_policy);
  if (writeback !== undefined && writeback !== draft.writeback_policy) grant['writeback_policy'] = writeback;
  const day = choice.expires_at;
  if (day !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(day) && day !== draft.expires_at.slice(0, 10)) {
    // The end of the chosen day (UTC); a later day than asked is sent as it is, and refused.
    grant['expires_at'] = new Date(Date.parse(`${day}T23:59:59.000Z`)).toISOString();
  }
  return grant;
}
