import type { A2aTaskRecord } from '../model/a2a-task.ts';
import type { CrossDomainReviewRecord } from '../model/cross-domain-review.ts';
import type { GrantRecord } from '../model/grant-record.ts';
import type { GrantRequestRecord } from '../model/grant-request.ts';
import type { ProposalRecord } from '../model/proposal.ts';
import { toJson } from './rows.ts';

// Records as the column values an INSERT writes, the inverse of row-mappers.ts: the same tables and
// columns on both drivers, so each driver's statement is `INSERT INTO t (${T_COLUMNS}) VALUES
// (${placeholders(T_COLUMNS)})` with `...tRow(record)`, and what a column holds is said once. The
// plain columns beside a JSON `body` exist to be filtered, ordered or constrained on.

type Value = string | number | null;

const placeholderLists = new Map<string, string>();

/** `?, ?, …`, one per column of a comma-separated list (made once per list). */
export function placeholders(columns: string): string {
  let list = placeholderLists.get(columns);
  if (list === undefined) {
    list = columns
      .split(',')
      .map(() => '?')
      .join(', ');
    placeholderLists.set(columns, list);
  }
  return list;
}

export const GRANT_COLUMNS =
  'grant_id, subject_id, grantee_id, profile_id, status, granted_at, expires_at, revoked_at, access_mode, body';

export function grantRow(grant: GrantRecord): Value[] {
  return [
    grant.grant_id,
    grant.subject_id,
    grant.grantee_id,
    grant.profile_id,
    grant.status,
    grant.granted_at,
    grant.expires_at ?? null,
    grant.revoked_at ?? null,
    grant.access_mode,
    toJson(grant),
  ];
}

export const GRANT_REQUEST_COLUMNS =
  'grant_request_id, client_id, subject_id, status, expires_at, package_id, package_index, body';

export function grantRequestRow(request: GrantRequestRecord): Value[] {
  return [
    request.grant_request_id,
    request.client_id,
    request.subject_id,
    request.status,
    request.expires_at,
    request.package?.package_id ?? null,
    request.package?.index ?? null,
    toJson(request),
  ];
}

export const PROPOSAL_COLUMNS = 'proposal_id, profile_id, grant_id, client_id, status, created_at, body';

export function proposalRow(proposal: ProposalRecord): Value[] {
  return [
    proposal.proposal_id,
    proposal.profile_id,
    proposal.grant_id,
    proposal.client_id,
    proposal.status,
    proposal.created_at,
    toJson(proposal),
  ];
}

export const REVIEW_COLUMNS =
  'review_id, grant_id, subject_id, source_domains, target_domain, status, created_at, decided_at, body';

export function reviewRow(review: CrossDomainReviewRecord): Value[] {
  return [
    review.review_id,
    review.grant_id,
    review.subject_id,
    // Sorted, so that one set of domains is one value whatever order it came in.
    toJson([...review.source_domains].sort()),
    review.target_domain,
    review.status,
    review.created_at,
    review.decided_at ?? null,
    toJson(review),
  ];
}

/** What an A2A task insert writes: the columns taskFromRow reads, and the body's size (for the per-grant cap). */
export const TASK_WRITTEN_COLUMNS =
  'task_id, owner, context_id, state, created_at, updated_at, updated_ms, body, counterpart, body_bytes';

export function taskRow(record: A2aTaskRecord, updatedMs: number): Value[] {
  return [
    record.task_id,
    record.owner,
    record.context_id,
    record.state,
    record.created_at,
    record.updated_at,
    updatedMs,
    record.body,
    record.counterpart ?? null,
    Buffer.byteLength(record.body),
  ];
}
