import type { Claim } from '../../../src/model/claim.ts';

// A claim as the person changes it: the same preference with the value they chose. Said by them,
// so its source is theirs and it is sure (what they say of themselves is not a guess).

export function editedClaim(claim: Claim, value: unknown): Record<string, unknown> {
  return {
    type: claim.type,
    namespace: claim.namespace,
    key: claim.key,
    value,
    ...(claim.value_type !== undefined ? { value_type: claim.value_type } : {}),
    ...(claim.units !== undefined ? { units: claim.units } : {}),
    confidence: 1,
    source: { kind: 'user_stated', origin: 'web_app' },
  };
}

/** A proposal edited before accepting: the app's claim with the person's value. */
export function editedProposal(claim: Claim, value: unknown): Record<string, unknown> {
  return {
    type: claim.type,
    namespace: claim.namespace,
    key: claim.key,
    value,
    ...(claim.value_type !== undefined ? { value_type: claim.value_type } : {}),
    ...(claim.units !== undefined ? { units: claim.units } : {}),
    confidence: claim.confidence,
    source: claim.source,
  };
}

/** The slider's 0–100 position as the 0–1 value it stands for. */
export function fromPercent(percent: unknown): number | undefined {
  const n = Number(percent);
  return Number.isFinite(n) && n >= 0 && n <= 100 ? Math.round(n) / 100 : undefined;
}

/** Where the slider starts for a 0–1 value (the card draws it at this position). */
export function toPercent(value: unknown): number | undefined {
  return typeof value === 'number' ? Math.round(value * 100) : undefined;
}
