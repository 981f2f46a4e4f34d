import type { z } from 'zod';
import { normalizeKey } from '../../model/claim.ts';
import type { GrantRequestDraft } from '../../model/grant-request.ts';
import { MS_PER_DAY } from '../../model/vocabulary.ts';
import { NarrowInput } from '../../operations/consent/decide.ts';
import { narrowingOfChoice } from '../../operations/consent/narrowing-choices.ts';
import { keysOfNamespace } from '../shared/describe.ts';
import { type Form, field, fields } from './session.ts';

// The consent form ↔ the operations' narrowing. The form shows what was asked, pre-ticked; what
// the subject leaves ticked becomes a `NarrowInput` that names only the fields that changed
// (policy/narrowing.ts#narrowingOfChoice), so "allow as asked" approves exactly the request.
// Whether a narrowing is allowed is decided by policy/narrowing.ts#narrowDraft (through
// approveGrantRequest), never here.

/** The state of the consent form. */
export interface Selection {
  readonly purposes: readonly string[];
  readonly domains: readonly string[];
  readonly namespaces: readonly string[];
  /** Ticked keys (qualified as in grants). */
  readonly keys: readonly string[];
  readonly operations: readonly string[];
  readonly cross_domain_transfer: string;
  readonly writeback_policy: string;
  /** Days from now, or '' for the expiry asked for. */
  readonly duration: string;
}

const DURATIONS = [1, 7, 30, 90, 180] as const;

/** Shorter lifetimes to offer: only those ending before the expiry asked for. */
export function shorterDurations(draft: GrantRequestDraft, now: Date): number[] {
  const asked = Date.parse(draft.expires_at);
  return DURATIONS.filter((d) => now.getTime() + d * MS_PER_DAY < asked);
}

/** Everything ticked, as asked. */
export function selectionAsAsked(draft: GrantRequestDraft): Selection {
  return {
    purposes: draft.purposes,
    domains: draft.allowed_domains,
    namespaces: draft.allowed_namespaces,
    keys: offeredKeys(draft),
    operations: draft.allowed_operations,
    cross_domain_transfer: draft.cross_domain_transfer,
    writeback_policy: draft.writeback_policy,
    duration: '',
  };
}

/** The form's state; on a package page every field name carries the element's `prefix`. */
export function selectionFromForm(form: Form, prefix = ''): Selection {
  return {
    purposes: fields(form, `${prefix}purpose`),
    domains: fields(form, `${prefix}domain`),
    namespaces: fields(form, `${prefix}namespace`),
    keys: fields(form, `${prefix}key`).map(normalizeKey),
    operations: fields(form, `${prefix}operation`),
    cross_domain_transfer: field(form, `${prefix}cross_domain_transfer`) ?? '',
    writeback_policy: field(form, `${prefix}writeback_policy`) ?? '',
    duration: field(form, `${prefix}duration`) ?? '',
  };
}

/** Keys shown on the form: those asked for, or every key of the namespaces asked for. */
function offeredKeys(draft: GrantRequestDraft): string[] {
  return draft.allowed_claim_keys
    ? draft.allowed_claim_keys.map(normalizeKey)
    : draft.allowed_namespaces.flatMap(keysOfNamespace);
}

/**
 * The narrowing the form expresses (policy/narrowing.ts#narrowingOfChoice, which the web app's
 * form uses too). Values the form could not have produced (an unknown duration, a policy left
 * empty) are passed on as they are so that the operation refuses them, rather than being
 * silently dropped.
 */
export function narrowingOf(
  draft: GrantRequestDraft,
  sel: Selection,
  now: Date,
): { ok: true; narrow: z.infer<typeof NarrowInput> } | { ok: false; error: string } {
  if (sel.duration !== '' && (!/^\d{1,3}$/.test(sel.duration) || Number(sel.duration) < 1)) {
    return { ok: false, error: 'Choose how long to allow it from the list.' };
  }
  const narrow = narrowingOfChoice(
    draft,
    {
      purposes: sel.purposes,
      allowed_domains: sel.domains,
      allowed_namespaces: sel.namespaces,
      allowed_claim_keys: sel.keys,
      allowed_operations: sel.operations,
      cross_domain_transfer: sel.cross_domain_transfer,
      writeback_policy: sel.writeback_policy,
      expires_at:
        sel.duration === ''
          ? undefined
          : new Date(now.getTime() + Number(sel.duration) * MS_PER_DAY).toISOString(),
    },
    offeredKeys(draft),
  );
  // The operation's own schema checks the shape (known policy values, sizes) before it runs.
  const parsed = NarrowInput.safeParse(narrow);
  if (!parsed.success) {
    return {
      ok: false,
      error: `The form held a value that cannot be used: ${parsed.error.issues[0]?.message}`,
    };
  }
  return { ok: true, narrow: parsed.data };
}
