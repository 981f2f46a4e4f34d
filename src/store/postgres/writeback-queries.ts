import type { ClaimHistoryEntry, ClaimHistoryInput } from '../../model/claim-history.ts';
import type { ProposalRecord } from '../../model/proposal.ts';
import type { StoreTx } from '../store.ts';
import { patchJson } from './consent-queries.ts';
import { body, bodyOf, clampLimit, decodeCursor, encodeCursor, instant, integer, toJson } from './rows.ts';
import type { Sql } from './sql.ts';

export type WritebackQueries = Pick<
  StoreTx,
  | 'getProposal'
  | 'listProposals'
  | 'listClaimHistory'
  | 'insertProposal'
  | 'transitionProposal'
  | 'appendClaimHistory'
>;

/**
 * Proposals and claim history (the SQLite side's writeback-queries.ts). transitionProposal is
 * compare-and-set in the UPDATE's own WHERE clause and patches `body` in the same statement.
 */
export function writebackQueries(sql: Sql): WritebackQueries {
  return {
    async getProposal(proposalId) {
      return bodyOf<ProposalRecord>(
        await sql.get('SELECT body FROM proposals WHERE proposal_id = ?', proposalId),
      );
    },
    async listProposals(profileId, status) {
      const rows =
        status === undefined
          ? await sql.all(
              'SELECT body FROM proposals WHERE profile_id = ? ORDER BY created_at, proposal_id',
              profileId,
            )
          : await sql.all(
              'SELECT body FROM proposals WHERE profile_id = ? AND status = ? ORDER BY created_at, proposal_id',
              profileId,
              status,
            );
      return rows.map((row) => body<ProposalRecord>(row));
    },
    async insertProposal(proposal) {
      await sql.run(
        `INSERT INTO proposals (proposal_id, profile_id, grant_id, client_id, status, created_at, body)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        proposal.proposal_id,
        proposal.profile_id,
        proposal.grant_id,
        proposal.client_id,
        proposal.status,
        proposal.created_at,
        toJson(proposal),
      );
    },
    async transitionProposal(proposalId, expected, patch) {
      const row = await sql.get(
        `UPDATE proposals SET status = ?, body = ppx_json_patch(body, ?::json)
         WHERE proposal_id = ? AND status = ? RETURNING body`,
        patch.status ?? expected,
        patchJson(patch),
        proposalId,
        expected,
      );
      return bodyOf<ProposalRecord>(row);
    },
    async appendClaimHistory(entries) {
      for (const entry of entries) {
        await sql.run(
          'INSERT INTO claim_history (claim_id, profile_id, at, at_ms, body) VALUES (?, ?, ?, ?, ?)',
          entry.claim_id,
          entry.profile_id,
          entry.at,
          instant(entry.at),
          toJson(entry),
        );
      }
    },
    async listClaimHistory(filter) {
      const clauses: [string, unknown][] = [['profile_id = ?', filter.profile_id]];
      if (filter.claim_id !== undefined) clauses.push(['claim_id = ?', filter.claim_id]);
      if (filter.since !== undefined) clauses.push(['at_ms >= ?', instant(filter.since)]);
      if (filter.until !== undefined) clauses.push(['at_ms < ?', instant(filter.until)]);
      if (filter.cursor !== undefined) clauses.push(['seq > ?', decodeCursor('history', filter.cursor)]);
      const limit = clampLimit(filter.limit);
      const rows = await sql.all(
        `SELECT seq, body FROM claim_history WHERE ${clauses.map(([c]) => c).join(' AND ')} ORDER BY seq LIMIT ?`,
        ...clauses.map(([, v]) => v),
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const entries = page.map(
        (row): ClaimHistoryEntry => ({ ...body<ClaimHistoryInput>(row), seq: integer(row, 'seq') }),
      );
      const last = page.at(-1);
      return rows.length > limit && last !== undefined
        ? { entries, next_cursor: encodeCursor('history', integer(last, 'seq')) }
        : { entries };
    },
  };
}
