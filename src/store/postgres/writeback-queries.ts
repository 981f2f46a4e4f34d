import type { ProposalRecord } from '../../model/proposal.ts';
import type { WritebackArea } from '../query-areas.ts';
import { claimHistoryPageOf, claimHistoryWalk } from '../row-mappers.ts';
import { PROPOSAL_COLUMNS, placeholders, proposalRow } from '../row-values.ts';
import { body, bodyOf, instant, toJson, valuesOf, whereOf } from '../rows.ts';
import { patchJson } from './consent-queries.ts';
import type { Sql } from './sql.ts';

export type WritebackQueries = WritebackArea;

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
        `INSERT INTO proposals (${PROPOSAL_COLUMNS}) VALUES (${placeholders(PROPOSAL_COLUMNS)})`,
        ...proposalRow(proposal),
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
      const { clauses, limit } = claimHistoryWalk(filter);
      return claimHistoryPageOf(
        await sql.all(
          `SELECT seq, body FROM claim_history WHERE ${whereOf(clauses)} ORDER BY seq LIMIT ?`,
          ...valuesOf(clauses),
          limit + 1,
        ),
        limit,
      );
    },
  };
}
