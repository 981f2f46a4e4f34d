import { ok, type Result } from '../../model/errors.ts';
import { checkRequirement, type OperationRequirement } from '../../policy/requirement.ts';
import { type AccessRequest, evaluateAccess, type Scope } from '../../policy/scope.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import type { Caller } from '../callers/caller.ts';
import type { AnyDeps, Deps } from '../deps.ts';

/**
 * evaluateAccess for a grant's caller, with every refusal audited as a denial (`outcome:
 * "denied"`, `detail: "<label>: <code>"`) before it is returned: the one way an operation asks
 * whether a grant lets a request through.
 */
export async function evaluateOrDeny(
  deps: Deps,
  caller: Extract<Caller, { kind: 'grant' }>,
  request: AccessRequest,
  label: string,
  now: Date,
): Promise<Result<Scope>> {
  const scope = evaluateAccess(caller.grant, request, now);
  deps.metrics.grantDecisions.series(label, scope.ok ? 'allowed' : scope.error.code).inc();
  if (!scope.ok) {
    await recordCallerAudit(
      deps,
      caller,
      caller.grant.subject_id,
      { action: 'denied', outcome: 'denied', detail: `${label}: ${scope.error.code}` },
      now,
    );
  }
  return scope;
}

/**
 * WIRE-NOTES §2.7: what a grantee's grant refuses for an operation whatever its input holds,
 * checked by every surface after the token and before reading the input; a refusal is audited as
 * a denial, labelled with the operation's name. The subject is bound by no grant.
 */
export async function precheckGrant(
  deps: AnyDeps,
  caller: Caller,
  requirement: OperationRequirement | undefined,
  operation: string,
): Promise<Result<true>> {
  if (caller.kind !== 'grant' || requirement === undefined) return ok(true);
  const now = deps.clock();
  const checked = checkRequirement(caller.grant, requirement, now);
  // Only refusals: an allowed precheck is followed by the operation's own decision, counted there.
  if (!checked.ok) deps.metrics.grantDecisions.series(operation, checked.error.code).inc();
  if (!checked.ok) {
    await recordCallerAudit(
      deps,
      caller,
      caller.grant.subject_id,
      { action: 'denied', outcome: 'denied', detail: `${operation}: ${checked.error.code}` },
      now,
    );
  }
  return checked;
}
