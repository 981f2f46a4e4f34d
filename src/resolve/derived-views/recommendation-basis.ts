import { z } from 'zod';
import {
  band,
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

// recommendation_basis (SPEC §4.7, §13.1): one confidence-weighted signal per visible normalized
// claim, core and domain, for a recommender to rank with. Weighting shrinks a value toward the
// neutral 0.5 in proportion to its uncertainty, so a guess counts for less than a certainty:
//   signal(key) = 0.5 + (value − 0.5) × confidence
// plus `mean_confidence`, the mean confidence of the claims used.

export const recommendationBasis: DerivedViewKind = {
  kind: 'recommendation_basis',
  summary: 'Confidence-weighted signals from the visible normalized claims, for ranking and recommendation',
  purposes: ['recommendation', 'ranking', 'personalization'],
  inputKeys: 'normalized',
  body: z.strictObject({ context: ContextField }),
  compute,
};

function compute(input: ViewInput): ViewOutput {
  const numeric = [...numericClaims(input.claims).values()];
  const signals: Record<string, number> = {};
  const explanations: string[] = [];
  const warnings: string[] = [];
  if (numeric.length === 0) {
    warnings.push('No normalized claim is visible under this grant: the view has no signals.');
    return { signals, basis: [], explanations, warnings };
  }
  let confidenceSum = 0;
  for (const n of numeric) {
    const s = signal(0.5 + (n.value - 0.5) * n.confidence);
    signals[n.key] = s;
    confidenceSum += n.confidence;
    explanations.push(`${label(n.key)}: ${band(s)} (confidence ${band(n.confidence)}).`);
    if (n.confidence < LOW_CONFIDENCE) {
      warnings.push(`${label(n.key)} rests on a low-confidence claim: its signal stays near neutral.`);
    }
  }
  signals['mean_confidence'] = signal(confidenceSum / numeric.length);
  explanations.unshift(
    `${numeric.length} signal(s), each the claim's normalized value pulled toward neutral (0.5) by its uncertainty.`,
    ...contextNote(input),
  );
  return { signals, basis: numeric.map((n) => n.key), explanations, warnings };
}
