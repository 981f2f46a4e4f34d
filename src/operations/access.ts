import type { Result } from '../model/errors.ts';
import { type AccessRequest, evaluateAccess, type Scope } from '../policy/scope.ts';
import { recordCallerAudit } from './audit.ts';
import type { Caller } from './caller.ts';
import type { Deps } from './deps.ts';

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
