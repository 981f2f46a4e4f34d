import { z } from 'zod';
import {
  band,
  ContextField,
  contextNote,
  type DerivedViewKind,
  isNormalizedKey,
  LOW_CONFIDENCE,
  label,
  numericClaims,
  signal,
  toBasisKey,
  type ViewInput,
  type ViewOutput,
} from './contract.ts';

// match: how well the subject fits a target the caller supplies, key by key (SPEC §4.7).
//   signal(key)    = 1 − |value − target|                      (closeness, per target key)
//   overall_match  = Σ confidence × closeness / Σ confidence   (over the keys the subject has)
//   coverage       = keys with a visible claim / target keys
// Target keys must be registered normalized keys, and the operation passes them to the grant as
// requested keys, so a key outside the grant is refused before anything is read.

const KEY = /^([a-z][a-z0-9_]*\.)?[a-z][a-z0-9_]*$/;

const Target = z
  .record(
    z.string().max(200).regex(KEY, 'target keys are `key` (core) or `namespace.key`'),
    z.number().min(0).max(1),
  )
  .superRefine((target, ctx) => {
    const keys = Object.keys(target);
    if (keys.length === 0) ctx.addIssue({ code: 'custom', message: 'target needs at least one key' });
    if (keys.length > 50) ctx.addIssue({ code: 'custom', message: 'target has more than 50 keys' });
    for (const key of keys) {
      if (KEY.test(key) && !isNormalizedKey(toBasisKey(key))) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `"${key}" is not a normalized (0–1) key of a supported extension`,
        });
      }
    }
  });

export const match: DerivedViewKind = {
  kind: 'match',
  summary: 'Per-key closeness of the subject to a target, and a confidence-weighted overall score',
  purposes: ['matching', 'recommendation', 'ranking'],
  inputKeys: 'normalized',
  body: z.strictObject({ target: Target, context: ContextField }),
  compute,
};

function compute(input: ViewInput): ViewOutput {
  const numeric = numericClaims(input.claims);
  const target = new Map(Object.entries(input.target ?? {}).map(([k, v]) => [toBasisKey(k), v]));
  const keys = [...target.keys()].sort();
  const signals: Record<string, number> = {};
  const basis: string[] = [];
  const explanations: string[] = [];
  const warnings: string[] = [];
  let weighted = 0;
  let weights = 0;
  for (const key of keys) {
    const claim = numeric.get(key);
    if (!claim) {
      warnings.push(`No visible claim for ${label(key)}: it does not count toward the match.`);
      continue;
    }
    const closeness = signal(1 - Math.abs(claim.value - (target.get(key) ?? 0)));
    signals[key] = closeness;
    basis.push(key);
    weighted += claim.confidence * closeness;
    weights += claim.confidence;
    explanations.push(`${label(key)}: ${closenessWords(closeness)} (confidence ${band(claim.confidence)}).`);
    if (closeness < 0.5) warnings.push(`Potential mismatch in ${label(key)}.`);
    if (claim.confidence < LOW_CONFIDENCE) warnings.push(`${label(key)} rests on a low-confidence claim.`);
  }
  if (weights > 0) signals['overall_match'] = signal(weighted / weights);
  signals['coverage'] = signal(keys.length > 0 ? basis.length / keys.length : 0);
  explanations.unshift(
    `Matched ${basis.length} of ${keys.length} target key(s); each signal is 1 − |difference| from the target, and the overall score weights them by confidence.`,
    ...contextNote(input),
  );
  return { signals, basis, explanations, warnings };
}

function closenessWords(x: number): string {
  return x >= 0.8 ? 'close to the target' : x >= 0.5 ? 'partly matches the target' : 'far from the target';
}
