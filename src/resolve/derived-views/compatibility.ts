import { z } from 'zod';
import { CORE_EXTENSION } from '../../model/extensions/core.ts';
import {
  ContextField,
  contextNote,
  type DerivedViewKind,
  LOW_CONFIDENCE,
  label,
  numericClaims,
  signal,
  type ViewInput,
  type ViewOutput,
} from './contract.ts';

// compatibility: two subjects, each under a grant with purpose `matching` held by the same
// grantee (SPEC §13.3, WIRE-NOTES §6). Only core traits count (they are the keys designed to
// travel between people and domains), and only those BOTH subjects have visible under their
// own grant — so every key used lies inside both grants. Never a raw value, only:
//   signal(trait)      = 1 − |a − b|                                  (alignment)
//   overall_alignment  = Σ min(conf_a, conf_b) × alignment / Σ min(conf_a, conf_b)

const TRAITS = CORE_EXTENSION.keys.filter((k) => k.units === 'normalized_0_1').map((k) => `core.${k.key}`);

export const compatibility: DerivedViewKind = {
  kind: 'compatibility',
  summary: "Per-trait alignment of the caller's subject with a counterpart subject (WIRE-NOTES §6)",
  purposes: ['matching'],
  inputKeys: TRAITS,
  body: z.strictObject({ counterpart_grant_id: z.string().min(1).max(300), context: ContextField }),
  compute,
};

function compute(input: ViewInput): ViewOutput {
  const mine = numericClaims(input.claims);
  const theirs = numericClaims(input.counterpart ?? []);
  const shared = TRAITS.filter((k) => mine.has(k) && theirs.has(k)).sort();
  const signals: Record<string, number> = {};
  const explanations: string[] = [];
  const warnings: string[] = [];
  let weighted = 0;
  let weights = 0;
  for (const key of shared) {
    const a = mine.get(key);
    const b = theirs.get(key);
    if (!a || !b) continue;
    const alignment = signal(1 - Math.abs(a.value - b.value));
    const weight = Math.min(a.confidence, b.confidence);
    signals[key] = alignment;
    weighted += weight * alignment;
    weights += weight;
    if (alignment >= 0.8) explanations.push(`Both profiles are close on ${label(key)}.`);
    else if (alignment >= 0.5) explanations.push(`The profiles differ somewhat on ${label(key)}.`);
    else warnings.push(`Potential mismatch in ${label(key)}.`);
    if (weight < LOW_CONFIDENCE)
      warnings.push(`${label(key)} rests on a low-confidence claim in one profile.`);
  }
  if (shared.length === 0) {
    warnings.push('The two profiles share no trait that both grants allow: nothing to compare.');
  }
  if (weights > 0) signals['overall_alignment'] = signal(weighted / weights);
  explanations.unshift(
    `Compared ${shared.length} trait(s) both grants allow and both profiles hold; each signal is 1 − |difference|.`,
    ...contextNote(input),
  );
  return { signals, basis: shared, explanations, warnings };
}
