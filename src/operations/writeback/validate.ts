import type { z } from 'zod';
import { Claim, qualifiedKey } from '../../model/claim.ts';
import { fail, ok, type PpxErrorCode, type PpxFailure, type Result } from '../../model/errors.ts';
import { vocabularyProblems } from '../../model/extensions/index.ts';
import { describeIssues } from '../../model/validate.ts';
import { ppxId } from '../../model/vocabulary.ts';
import type { Scope } from '../../policy/scope.ts';
import { personOwnedProblem } from '../../policy/writeback.ts';

/** A claim as a grantee proposes it: `claim_id` is optional (the provider picks the stored id). */
export const ProposedClaim = Claim.extend({ claim_id: ppxId('claim').optional() });
export type ProposedClaim = z.infer<typeof ProposedClaim>;

/** What is wrong with one proposed claim, named so a person can find and fix it. */
export interface ClaimProblem {
  readonly index: number;
  readonly claim_id?: string;
  readonly key?: string;
  readonly code: 'invalid_request' | 'insufficient_scope';
  readonly problem: string;
}

/** Placeholder id for vocabulary checks of a claim proposed without one. */
const NO_ID = 'ppx:claim:proposed';

/**
 * Checks every proposed claim: the claim schema, the namespace's vocabulary, no key twice, and —
 * under a grant — the namespace and key inside the grant's scope and no person-owned field set. Pure. Returns every problem
 * found; the caller stores nothing unless the list is empty.
 */
export function proposalProblems(
  raw: readonly unknown[],
  scope: Scope | undefined,
): { claims: ProposedClaim[]; problems: ClaimProblem[] } {
  const claims: ProposedClaim[] = [];
  const problems: ClaimProblem[] = [];
  const seen = new Set<string>();
  raw.forEach((input, index) => {
    const parsed = ProposedClaim.safeParse(input);
    const rec = (input ?? {}) as Record<string, unknown>;
    const label = {
      index,
      ...(typeof rec['claim_id'] === 'string' ? { claim_id: rec['claim_id'] } : {}),
      ...(typeof rec['namespace'] === 'string' && typeof rec['key'] === 'string'
        ? { key: qualifiedKey({ namespace: rec['namespace'], key: rec['key'] }) }
        : {}),
    };
    if (!parsed.success) {
      problems.push({ ...label, code: 'invalid_request', problem: describeIssues(parsed.error.issues) });
      return;
    }
    const claim = parsed.data;
    const key = qualifiedKey(claim);
    for (const p of vocabularyProblems({ ...claim, claim_id: claim.claim_id ?? NO_ID })) {
      problems.push({ ...label, key, code: 'invalid_request', problem: p });
    }
    if (seen.has(key)) {
      problems.push({
        ...label,
        key,
        code: 'invalid_request',
        problem: `key ${key} is proposed more than once`,
      });
    }
    seen.add(key);
    // Under a grant: the person-owned fields are not the grantee's to set (policy/writeback.ts).
    const owned = scope === undefined ? undefined : personOwnedProblem(claim);
    if (owned !== undefined) problems.push({ ...label, key, code: 'invalid_request', problem: owned });
    const outside = scope === undefined ? undefined : scopeProblem(scope, claim);
    if (outside !== undefined) problems.push({ ...label, key, code: 'insufficient_scope', problem: outside });
    claims.push(claim);
  });
  return { claims, problems };
}

function scopeProblem(scope: Scope, claim: ProposedClaim): string | undefined {
  if (!scope.namespaces.has(claim.namespace)) {
    return `the grant does not include namespace "${claim.namespace}"`;
  }
  const key = qualifiedKey(claim);
  if (scope.keys !== undefined && !scope.keys.has(key)) return `the grant does not include key ${key}`;
  return undefined;
}

/**
 * One failure for a list of problems: a bad claim is a 400 naming it; when every claim is well
 * formed but one lies outside the grant, a 403 insufficient_scope naming it.
 */
export function problemsFailure(
  problems: readonly ClaimProblem[],
  grantId?: string,
): { readonly ok: false; readonly error: PpxFailure } {
  const invalid = problems.filter((p) => p.code === 'invalid_request');
  const shown = invalid.length > 0 ? invalid : problems;
  const code: PpxErrorCode = invalid.length > 0 ? 'invalid_request' : 'insufficient_scope';
  const text = shown
    .slice(0, 5)
    .map((p) => `claims[${p.index}]${p.key ? ` (${p.key})` : ''}: ${p.problem}`)
    .join('; ');
  return fail(code, `${shown.length} proposed claim problem(s), nothing was stored: ${text}`, {
    ...(grantId !== undefined ? { grantId } : {}),
    details: { problems: shown.slice(0, 50) },
  });
}

/** Checks an edited claim the same way; undefined when it is fine. */
export function checkOne(raw: unknown, scope: Scope | undefined): Result<ProposedClaim> {
  const { claims, problems } = proposalProblems([raw], scope);
  if (problems.length > 0) return problemsFailure(problems, scope?.grant.grant_id);
  return ok(claims[0] as ProposedClaim);
}
