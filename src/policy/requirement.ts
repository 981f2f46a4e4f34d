import { fail, ok, type Result } from '../model/errors.ts';
import type { GrantRecord } from '../model/grant-record.ts';
import type { Operation, Purpose } from '../model/vocabulary.ts';
import { evaluateAccess } from './scope.ts';

/**
 * What a grant must allow before an operation looks at its input: the part of its access
 * decision that depends on the grant alone (WIRE-NOTES §2.7). The operation catalog declares one
 * per operation a grantee may call.
 */
export interface OperationRequirement {
  /** SPEC §6.4 `allowed_operations`. */
  readonly operation: Operation;
  /** Grants that allow one of these may call it too (a `read` grant may `query`). */
  readonly alsoPermittedBy?: readonly Operation[];
  /** One of these purposes must be granted (a derived view serves its kind's purposes only). */
  readonly purposes?: readonly Purpose[];
  /** It writes to the profile: under `writeback_policy: forbidden` it is refused (SPEC §6.6). */
  readonly writes?: true;
}

/**
 * WIRE-NOTES §2.7: after the token, and before the input, what the grant itself refuses for the
 * operation whatever the input holds: a missing operation, an unmet purpose, a forbidden
 * write-back. A grantee learns nothing from the input's validation that its grant would not let
 * it use. The texts are those the operations give for the same refusals.
 */
export function checkRequirement(
  grant: GrantRecord,
  requirement: OperationRequirement,
  now: Date,
): Result<true> {
  const { purposes } = requirement;
  // The first purpose of the kind when the grant holds none, so the refusal names one.
  const purpose = purposes ? (purposes.find((p) => grant.purposes.includes(p)) ?? purposes[0]) : undefined;
  const access = evaluateAccess(
    grant,
    {
      operation: requirement.operation,
      ...(requirement.alsoPermittedBy ? { alsoPermittedBy: requirement.alsoPermittedBy } : {}),
      ...(purpose !== undefined ? { purpose } : {}),
    },
    now,
  );
  if (!access.ok) return access;
  if (requirement.writes && grant.writeback_policy === 'forbidden') {
    return fail('writeback_forbidden', 'the grant does not allow this grantee to write to the profile', {
      grantId: grant.grant_id,
    });
  }
  return ok(true);
}
