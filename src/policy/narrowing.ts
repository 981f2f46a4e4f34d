import { namespaceOfKey, normalizeKey } from '../model/claim.ts';
import { fail, ok, type Result } from '../model/errors.ts';
import type { GrantRequestDraft } from '../model/grant-request.ts';
import type { CrossDomainTransfer, WritebackPolicy } from '../model/vocabulary.ts';

/** What the subject may change when approving: every field can only shrink (WIRE-NOTES §2.2). */
export interface Narrowing {
  readonly purposes?: readonly string[] | undefined;
  readonly allowed_domains?: readonly string[] | undefined;
  readonly allowed_namespaces?: readonly string[] | undefined;
  readonly allowed_claim_keys?: readonly string[] | undefined;
  readonly allowed_operations?: readonly string[] | undefined;
  readonly cross_domain_transfer?: CrossDomainTransfer | undefined;
  readonly writeback_policy?: WritebackPolicy | undefined;
  readonly expires_at?: string | undefined;
}

// From most to least protective: narrowing may move a policy left, never right.
const CROSS_DOMAIN_ORDER: readonly string[] = [
  'deny',
  'allow_with_review',
  'allow_if_same_provider',
  'allow',
];
const WRITEBACK_ORDER: readonly string[] = ['forbidden', 'review_required', 'auto_for_low_risk', 'allow'];

/**
 * The values a subject may choose for a policy the client asked for: the asked one and every
 * stricter one, most permissive first (what the consent page offers; narrowDraft refuses any other).
 */
export function allowedNarrowings(
  policy: 'cross_domain_transfer' | 'writeback_policy',
  asked: string,
): string[] {
  const order = policy === 'cross_domain_transfer' ? CROSS_DOMAIN_ORDER : WRITEBACK_ORDER;
  return order.slice(0, Math.max(0, order.indexOf(asked)) + 1).reverse();
}

/**
 * Applies the subject's narrowing to what the client asked for. Pure. Anything that would widen
 * the request (an item not asked for, a looser policy, a later expiry) is refused, not ignored,
 * so the subject never approves something other than what the page showed.
 */
export function narrowDraft(
  draft: GrantRequestDraft,
  narrow: Narrowing,
  now: Date,
): Result<GrantRequestDraft> {
  const purposes = subset('purposes', draft.purposes, narrow.purposes);
  if (!purposes.ok) return purposes;
  const domains = subset('allowed_domains', draft.allowed_domains, narrow.allowed_domains);
  if (!domains.ok) return domains;
  const namespaces = subset('allowed_namespaces', draft.allowed_namespaces, narrow.allowed_namespaces);
  if (!namespaces.ok) return namespaces;
  const operations = subset('allowed_operations', draft.allowed_operations, narrow.allowed_operations);
  if (!operations.ok) return operations;

  const keys = narrowKeys(draft, narrow.allowed_claim_keys, namespaces.value);
  if (!keys.ok) return keys;

  const cross = narrow.cross_domain_transfer ?? draft.cross_domain_transfer;
  if (rank(CROSS_DOMAIN_ORDER, cross) > rank(CROSS_DOMAIN_ORDER, draft.cross_domain_transfer)) {
    return fail(
      'invalid_request',
      `cross_domain_transfer "${cross}" is looser than the "${draft.cross_domain_transfer}" asked for`,
    );
  }
  const writeback = narrow.writeback_policy ?? draft.writeback_policy;
  if (rank(WRITEBACK_ORDER, writeback) > rank(WRITEBACK_ORDER, draft.writeback_policy)) {
    return fail(
      'invalid_request',
      `writeback_policy "${writeback}" is looser than the "${draft.writeback_policy}" asked for`,
    );
  }

  const expiresAt = narrow.expires_at ?? draft.expires_at;
  const expires = Date.parse(expiresAt);
  if (Number.isNaN(expires) || expires > Date.parse(draft.expires_at)) {
    return fail('invalid_request', 'the expiry may only be shortened');
  }
  if (expires <= now.getTime()) return fail('invalid_request', 'the expiry must be in the future');

  return ok({
    ...draft,
    purposes: purposes.value,
    allowed_domains: domains.value,
    allowed_namespaces: namespaces.value,
    ...(keys.value !== undefined ? { allowed_claim_keys: keys.value } : {}),
    allowed_operations: operations.value,
    cross_domain_transfer: cross,
    writeback_policy: writeback,
    expires_at: new Date(expires).toISOString(),
  });
}

/**
 * What the person kept of a request, whatever form they used (the consent page, the web app's
 * A2UI form): each list as left ticked, each policy and the expiry as chosen, `undefined` for
 * "as asked". Values are a form's, not yet checked: a value the form could not have offered is
 * carried into the narrowing so that narrowDraft refuses it, rather than being dropped.
 */
export interface KeptChoice {
  readonly purposes: readonly string[];
  readonly allowed_domains: readonly string[];
  readonly allowed_namespaces: readonly string[];
  readonly allowed_operations: readonly string[];
  /** The ticked keys, of those the form offered. */
  readonly allowed_claim_keys: readonly string[];
  readonly cross_domain_transfer?: string | undefined;
  readonly writeback_policy?: string | undefined;
  readonly expires_at?: string | undefined;
}

/** A narrowing as a form expressed it; the operation's schema checks its values. */
export interface ChosenNarrowing {
  purposes?: string[];
  allowed_domains?: string[];
  allowed_namespaces?: string[];
  allowed_claim_keys?: string[];
  allowed_operations?: string[];
  cross_domain_transfer?: string;
  writeback_policy?: string;
  expires_at?: string;
}

const LISTS = ['purposes', 'allowed_domains', 'allowed_namespaces', 'allowed_operations'] as const;

/**
 * The narrowing a choice expresses: only the fields that differ from what was asked, so keeping
 * everything is the empty narrowing (approve as asked). `offeredKeys` are the keys the form
 * showed. Keys follow their namespaces: unticking a namespace drops its keys without naming them.
 */
export function narrowingOfChoice(
  draft: GrantRequestDraft,
  kept: KeptChoice,
  offeredKeys: readonly string[],
): ChosenNarrowing {
  const narrow: ChosenNarrowing = {};
  for (const name of LISTS) {
    if (!sameItems(draft[name], kept[name])) narrow[name] = [...new Set(kept[name])];
  }
  const inKept = (k: string) => kept.allowed_namespaces.includes(namespaceOfKey(k));
  const offered = offeredKeys.map(normalizeKey).filter(inKept);
  const keys = [...new Set(kept.allowed_claim_keys.map(normalizeKey))].filter(inKept);
  if (!sameItems(offered, keys)) narrow.allowed_claim_keys = keys;
  const { cross_domain_transfer: cross, writeback_policy: writeback, expires_at: expires } = kept;
  if (cross !== undefined && cross !== draft.cross_domain_transfer) narrow.cross_domain_transfer = cross;
  if (writeback !== undefined && writeback !== draft.writeback_policy) narrow.writeback_policy = writeback;
  if (expires !== undefined && expires !== draft.expires_at) narrow.expires_at = expires;
  return narrow;
}

/** The same items, as sets (a form may repeat a value; narrowDraft keeps each once). */
function sameItems(asked: readonly string[], kept: readonly string[]): boolean {
  return asked.every((x) => kept.includes(x)) && kept.every((x) => asked.includes(x));
}

function subset(
  field: string,
  asked: readonly string[],
  kept: readonly string[] | undefined,
): Result<readonly string[]> {
  if (kept === undefined) return ok(asked);
  const extra = kept.find((x) => !asked.includes(x));
  if (extra !== undefined)
    return fail('invalid_request', `${field}: "${extra}" was not requested, so it cannot be granted`);
  if (kept.length === 0)
    return fail('invalid_request', `${field}: keep at least one item, or reject the request`);
  return ok([...new Set(kept)]);
}

/** Keys shrink with the namespaces; a request without a key list may gain one (that narrows it). */
function narrowKeys(
  draft: GrantRequestDraft,
  kept: readonly string[] | undefined,
  namespaces: readonly string[],
): Result<readonly string[] | undefined> {
  const inScope = (k: string) => namespaces.includes(namespaceOfKey(k));
  const asked = draft.allowed_claim_keys?.map(normalizeKey);
  if (kept === undefined) return ok(asked?.filter(inScope));
  const keys = [...new Set(kept.map(normalizeKey))];
  const extra = keys.find((k) => (asked !== undefined ? !asked.includes(k) : !inScope(k)));
  if (extra !== undefined)
    return fail(
      'invalid_request',
      `allowed_claim_keys: "${extra}" was not requested, so it cannot be granted`,
    );
  const outside = keys.find((k) => !inScope(k));
  if (outside !== undefined)
    return fail('invalid_request', `allowed_claim_keys: "${outside}" lies outside the kept namespaces`);
  if (keys.length === 0)
    return fail('invalid_request', 'allowed_claim_keys: keep at least one key, or reject the request');
  return ok(keys);
}

function rank(order: readonly string[], value: string): number {
  const i = order.indexOf(value);
  return i < 0 ? order.length : i;
}
