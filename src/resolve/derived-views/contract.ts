import type { z } from 'zod';
import type { Claim } from '../../model/claim.ts';
import { ResolutionContext } from '../../model/context-modifier.ts';
import { keyDefinition, keyDefinitionOf } from '../../model/extensions/index.ts';
import type { Purpose } from '../../model/vocabulary.ts';
import { compareStrings } from '../order.ts';
import { round4 } from '../round.ts';

// The one shape every derived-view kind has (SPEC §4.7, §5.5; STYLE §2): adding a kind is adding
// a file beside this one and one line in index.ts. Kinds are pure: no clock, no I/O; they see
// only the claims the operation loaded through the one read path, already resolved.

/** What a kind computes from. Every claim here is visible under the caller's grant(s). */
export interface ViewInput {
  /** The subject's visible claims, resolved (lifecycle, context modifiers) for `context`. */
  readonly claims: readonly Claim[];
  /** compatibility: the counterpart subject's visible claims, resolved the same way. */
  readonly counterpart?: readonly Claim[] | undefined;
  /** match: target values in [0, 1] by key, as grants name keys (`x` or `core.x`, `fragrance.y`). */
  readonly target?: Readonly<Record<string, number>> | undefined;
  readonly context: ResolutionContext;
  readonly now: Date;
}

/** What a kind returns: derived numbers and key names only, never a claim value. */
export interface ViewOutput {
  /** Each in [0, 1], rounded to 4 decimals. */
  readonly signals: Record<string, number>;
  /** Basis keys (core prefixed `core.`) of the claims that contributed. */
  readonly basis: string[];
  readonly explanations: string[];
  readonly warnings: string[];
}

/** The request body shared by every kind; each kind accepts a strict subset of it. */
export interface ViewRequest {
  readonly context?: ResolutionContext | undefined;
  readonly target?: Record<string, number> | undefined;
  readonly counterpart_grant_id?: string | undefined;
}

export interface DerivedViewKind {
  /** The `view_kind`, and the last segment of `POST /v1/derived-views/{kind}`. */
  readonly kind: string;
  readonly summary: string;
  /** The grant purposes that allow this kind (one of them must be granted). */
  readonly purposes: readonly Purpose[];
  /** Basis keys the kind reads, or `normalized`: every visible claim with a normalized number. */
  readonly inputKeys: readonly string[] | 'normalized';
  /** The strict request body of this kind. */
  readonly body: z.ZodType<ViewRequest>;
  compute(input: ViewInput): ViewOutput;
}

export const ContextField = ResolutionContext.optional();

/** The key a view names a claim by: always `namespace.key`, core included (official example). */
export function basisKey(claim: { namespace: string; key: string }): string {
  return `${claim.namespace}.${claim.key}`;
}

/** `core.x` and `x` both mean the core key `x`; other keys must be `namespace.key`. */
export function toBasisKey(key: string): string {
  return key.includes('.') ? key : `core.${key}`;
}

/** The value of a claim registered as `normalized_0_1` with a number in [0, 1]; else undefined. */
function normalizedValue(claim: Claim): number | undefined {
  const def = keyDefinition(claim.namespace, claim.key);
  if (def?.units !== 'normalized_0_1') return undefined;
  const v = claim.value;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1 ? v : undefined;
}

/** Whether a basis key names a registered normalized key (what target and traits may use). */
export function isNormalizedKey(key: string): boolean {
  return key.indexOf('.') > 0 && keyDefinitionOf(key)?.units === 'normalized_0_1';
}

export interface NumericClaim {
  readonly key: string;
  readonly value: number;
  readonly confidence: number;
}

function strongestFirst(a: Claim, b: Claim): number {
  return b.confidence - a.confidence || compareStrings(a.claim_id, b.claim_id);
}

/**
 * The normalized numeric claims by basis key, in key order. When several claims share a key
 * (different contexts), the most confident one counts (ties by claim id): deterministic.
 */
export function numericClaims(claims: readonly Claim[]): Map<string, NumericClaim> {
  const out = new Map<string, NumericClaim>();
  for (const c of [...claims].sort(strongestFirst)) {
    const value = normalizedValue(c);
    const key = basisKey(c);
    if (value === undefined || out.has(key)) continue;
    out.set(key, { key, value, confidence: c.confidence });
  }
  return new Map([...out].sort(([a], [b]) => compareStrings(a, b)));
}

/** A signal: clamped to [0, 1] and rounded, so float noise never reaches the wire. */
export function signal(x: number): number {
  return round4(Math.min(1, Math.max(0, x)));
}

/** A coarse word for a derived number, for explanations (never the number itself). */
export function band(x: number): 'low' | 'moderate' | 'high' {
  return x < 0.34 ? 'low' : x < 0.67 ? 'moderate' : 'high';
}

/** The label of a basis key in prose: `core.novelty_tolerance` → `novelty tolerance`. */
export function label(key: string): string {
  const [ns, k] = key.split('.', 2) as [string, string | undefined];
  const words = (k ?? ns).replaceAll('_', ' ');
  return ns === 'core' || k === undefined ? words : `${ns} ${words}`;
}

/** Confidence below this is called out in warnings. */
export const LOW_CONFIDENCE = 0.5;

/** An explanation naming the context dimensions the claims were resolved for (never values). */
export function contextNote(input: Pick<ViewInput, 'context'>): string[] {
  const dims = Object.keys(input.context).sort(compareStrings);
  return dims.length > 0 ? [`Resolved for the supplied context (${dims.join(', ')}).`] : [];
}

/** Of the kind's input keys, whether it reads the claim named by `key` (a basis key). */
export function readsKey(kind: Pick<DerivedViewKind, 'inputKeys'>, key: string): boolean {
  return kind.inputKeys === 'normalized' ? isNormalizedKey(key) : kind.inputKeys.includes(key);
}
