import { createHash } from 'node:crypto';
import { type Claim, namespaceOfKey, qualifiedKey } from '../model/claim.ts';
import type { CrossDomainReviewStatus } from '../model/cross-domain-review.ts';
import { applyLifecycle } from '../resolve/lifecycle.ts';
import { round4 } from '../resolve/round.ts';
import type { Scope } from './scope.ts';
import { reviewableCrossDomainClaims } from './visibility.ts';

// Cross-domain trait mapping (SPEC §13.2, docs/cross-domain.md). Pure: no I/O; `now` is an
// argument. What crosses a domain boundary is never a raw domain claim but a new core claim
// derived from it: a coarse value on the core key's 0..1 scale, a lowered confidence, and an
// explanation that says where it came from without repeating the raw value.

/** How a source value becomes a 0..1 signal before shrinking and rounding. */
export type MappingTransform =
  /** A float in [0, 1] on a scale that points the same way as the core key. */
  | 'scale'
  /** A map<string,float>: the share of entries at or above 0.5 (how many options are liked). */
  | 'breadth';

export interface TraitMapping {
  /** Stable id, named in every mapped claim's `source.origin`. */
  readonly id: string;
  /** Qualified source key (`namespace.key`). */
  readonly source: string;
  /** Core key it maps to. */
  readonly target: string;
  readonly transform: MappingTransform;
  /** Why the two keys measure the same disposition (shown in docs/cross-domain.md). */
  readonly why: string;
}

const MAPPING_VERSION = 'v1';
/** Mapped confidence = source confidence (after decay) × this factor. */
const CONFIDENCE_FACTOR = 0.8;
/** Mapped value = 0.5 + SHRINK × (signal − 0.5), rounded to one decimal. */
const SHRINK = 0.8;
/** A `breadth` map needs at least this many entries to say anything about variety. */
const MIN_BREADTH_ENTRIES = 3;

function mapping(source: string, target: string, transform: MappingTransform, why: string): TraitMapping {
  return { id: `ppx-trait-map/${MAPPING_VERSION}/${source}->${target}`, source, target, transform, why };
}

/** The mapping table. At most one entry per (source domain, target key). */
export const TRAIT_MAPPINGS: readonly TraitMapping[] = [
  mapping(
    'fragrance.intensity_preference',
    'sensory_intensity_preference',
    'scale',
    'the core key is defined across modalities and names scent; same direction and scale',
  ),
  mapping(
    'fragrance.projection_tolerance',
    'social_energy_preference',
    'scale',
    'tolerating a scent that reaches other people is comfort with being noticed in shared space; the weakest entry',
  ),
  mapping(
    'fragrance.family_preference',
    'novelty_tolerance',
    'breadth',
    'liking many scent families rather than one is openness to variety, not any family in particular',
  ),
  mapping(
    'travel.cuisine_openness',
    'novelty_tolerance',
    'scale',
    'openness to unfamiliar over familiar food is the core definition of novelty tolerance, applied to meals',
  ),
  mapping(
    'travel.pace_preference',
    'decision_speed_preference',
    'scale',
    'a packed itinerary is a sequence of quick choices; a slow one leaves room to deliberate',
  ),
  mapping(
    'travel.urbanism_preference',
    'social_energy_preference',
    'scale',
    'preferring dense places is preferring more people and stimulation around oneself',
  ),
];

const BY_SOURCE = new Map(TRAIT_MAPPINGS.map((m) => [m.source, m]));

function mappingFor(qualified: string): TraitMapping | undefined {
  return BY_SOURCE.get(qualified);
}

const inUnit = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1;

/** The 0..1 signal of a source value, or undefined when the value does not fit the transform. */
export function signalOf(transform: MappingTransform, value: unknown): number | undefined {
  if (transform === 'scale') return inUnit(value) ? value : undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const affinities = Object.values(value);
  if (affinities.length < MIN_BREADTH_ENTRIES || !affinities.every(inUnit)) return undefined;
  return affinities.filter((a) => a >= 0.5).length / affinities.length;
}

/** Pulls a signal toward the neutral 0.5 and rounds it to one decimal: coarse by design. */
export function mappedValue(signal: number): number {
  return Math.round((0.5 + SHRINK * (signal - 0.5)) * 10) / 10;
}

function mappedId(m: TraitMapping, source: Claim): string {
  const hash = createHash('sha256').update(`${m.id}\n${source.claim_id}`).digest('hex').slice(0, 24);
  return `ppx:claim:mapped-${hash}`;
}

/** One mapped core claim, or undefined when the source has no mapping, is expired or unfit. */
export function mapClaim(claim: Claim, now: Date): Claim | undefined {
  const m = mappingFor(qualifiedKey(claim));
  if (m === undefined) return undefined;
  // Expiry and decay first: an expired source maps to nothing, a decayed one maps weaker.
  const live = applyLifecycle(claim, now);
  if (live === undefined) return undefined;
  const signal = signalOf(m.transform, live.value);
  if (signal === undefined) return undefined;
  const domain = claim.namespace;
  return {
    claim_id: mappedId(m, claim),
    type: 'derived_signal',
    namespace: 'core',
    key: m.target,
    value: mappedValue(signal),
    value_type: 'float',
    units: 'normalized_0_1',
    confidence: round4(live.confidence * CONFIDENCE_FACTOR),
    source: { kind: 'derived_aggregate', origin: m.id },
    explanation: {
      summary: `Mapped from the subject's ${domain} preferences after they reviewed the transfer; no ${domain} claim or value is shared.`,
      detail: `Trait mapping ${m.id} (${m.transform}), pulled toward 0.5 and rounded to one decimal; confidence × ${CONFIDENCE_FACTOR}.`,
    },
    ...(claim.lifecycle?.expires_at !== undefined
      ? { lifecycle: { expires_at: claim.lifecycle.expires_at } }
      : {}),
  };
}

/** Every claim that has a mapping, mapped (SPEC §13.2); the raw claims are never part of it. */
export function mapToCoreTraits(claims: readonly Claim[], now: Date): Claim[] {
  const out: Claim[] = [];
  for (const claim of claims) {
    const mapped = mapClaim(claim, now);
    if (mapped !== undefined) out.push(mapped);
  }
  return out;
}

/** What a read under `allow_with_review` could receive once reviewed, per source domain. */
export interface TransferPlan {
  /**
   * Sorted source domains the scope could draw mapped traits from (transferableDomains): what a
   * review is asked for, whatever the profile holds.
   */
  readonly domains: readonly string[];
  /** Per source domain, the core keys its mapped traits would have (sorted). */
  readonly keys: ReadonlyMap<string, readonly string[]>;
  /** Per source domain, the mapped traits the profile's claims give now. */
  readonly mapped: ReadonlyMap<string, readonly Claim[]>;
  /** The domain(s) the claims would be used in, sorted and comma-joined. */
  readonly target: string;
}

/**
 * Whether the scope lets mapping `m` carry a claim across: its source namespace (and key, when
 * keys are limited) is in scope and is another domain than the ones the scope uses, and its core
 * key is in scope too. The source must be in the grant: a review lets data cross domains, it never
 * widens what the grant covers.
 */
function mappingAllowed(scope: Scope, m: TraitMapping): boolean {
  const domain = namespaceOfKey(m.source);
  if (!scope.namespaces.has(domain) || !scope.namespaces.has('core')) return false;
  if (scope.keys !== undefined && !(scope.keys.has(m.source) && scope.keys.has(m.target))) return false;
  // A domain namespace's claims belong to that domain (policy/visibility.ts#homeDomains).
  return !scope.useDomains.includes(domain);
}

/**
 * The transfer a read would need. Its domains and keys come from the scope and the mapping table
 * alone, never from the claims, so whether a review is asked (and what the grantee is told about
 * it) says nothing about what the profile holds (issue 10, leak 3); the mapped traits are those
 * the cross-domain claims the scope withholds give now. Empty unless the grant says
 * `allow_with_review` and its scope allows some mapping.
 */
export function planTransfer(scope: Scope, claims: readonly Claim[], now: Date): TransferPlan {
  const keys = new Map<string, string[]>();
  if (scope.crossDomain === 'allow_with_review') {
    for (const m of TRAIT_MAPPINGS) {
      if (!mappingAllowed(scope, m)) continue;
      const domain = namespaceOfKey(m.source);
      keys.set(domain, [...new Set([...(keys.get(domain) ?? []), m.target])].sort());
    }
  }
  const mapped = new Map<string, Claim[]>();
  for (const source of reviewableCrossDomainClaims(scope, claims)) {
    if (source.namespace === 'core') continue; // core claims travel as they are or not at all
    const m = mappingFor(qualifiedKey(source));
    if (m === undefined || !mappingAllowed(scope, m)) continue;
    const trait = mapClaim(source, now);
    if (trait === undefined) continue;
    mapped.set(source.namespace, [...(mapped.get(source.namespace) ?? []), trait]);
  }
  return { domains: [...keys.keys()].sort(), keys, mapped, target: [...scope.useDomains].sort().join(',') };
}

export interface ReviewFact {
  readonly review_id: string;
  readonly source_domains: readonly string[];
  readonly target_domain: string;
  readonly status: CrossDomainReviewStatus;
}

export interface TransferDecision {
  /** Mapped traits that may be shown: those of approved source domains only. */
  readonly include: Claim[];
  /** Source domains no review covers yet: a pending review must be created for them. */
  readonly uncovered: string[];
  /** The review to tell the grantee about: a pending one first, else the latest decided. */
  readonly notice: { review_id: string; status: CrossDomainReviewStatus } | undefined;
}

/** Mapping applies only to what the subject approved; pending and rejected show nothing. */
export function mappingApplies(status: CrossDomainReviewStatus | undefined): boolean {
  return status === 'approved';
}

/**
 * Decides, from the grant's reviews (oldest first), which mapped traits a read includes. A source
 * domain's status is that of the latest review for the same target that covers it.
 */
export function decideTransfer(plan: TransferPlan, reviews: readonly ReviewFact[]): TransferDecision {
  const relevant = reviews.filter((r) => r.target_domain === plan.target);
  const include: Claim[] = [];
  const uncovered: string[] = [];
  const covering: ReviewFact[] = [];
  for (const domain of plan.domains) {
    const latest = relevant.findLast((r) => r.source_domains.includes(domain));
    if (latest === undefined) uncovered.push(domain);
    else {
      covering.push(latest);
      if (mappingApplies(latest.status)) include.push(...(plan.mapped.get(domain) ?? []));
    }
  }
  const shown =
    covering.find((r) => r.status === 'pending') ?? relevant.findLast((r) => covering.includes(r));
  return {
    include,
    uncovered,
    notice: shown === undefined ? undefined : { review_id: shown.review_id, status: shown.status },
  };
}
