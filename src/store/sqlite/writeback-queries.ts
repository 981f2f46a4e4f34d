import type { SQLInputValue } from 'node:sqlite';
import type { ProposalRecord } from '../../model/proposal.ts';
import type { Sync, WritebackArea } from '../query-areas.ts';
import { claimHistoryPageOf, claimHistoryWalk } from '../row-mappers.ts';
import { PROPOSAL_COLUMNS, placeholders, proposalRow } from '../row-values.ts';
import { body, bodyOf, instant, toJson, valuesOf, whereOf } from '../rows.ts';
import type { StatementCache } from './statement-cache.ts';

/**
 * The write-back side of the store (proposals, claim history; migration 0005) as synchronous SQL.
 * The caller runs each write in a transaction or savepoint.
 *
 * transitionProposal is compare-and-set in the UPDATE's own WHERE clause and rewrites `body`
 * with json_set in the same statement, like transitionGrantRequest.
 */
export function writebackQueries(sql: StatementCache): Sync<WritebackArea> {
  return {
    getProposal(proposalId) {
      return bodyOf<ProposalRecord>(
        sql.get('SELECT body FROM proposals WHERE proposal_id = ?').get(proposalId),
      );
    },
    listProposals(profileId, status) {
      const rows =
        status === undefined
          ? sql
              .get('SELECT body FROM proposals WHERE profile_id = ? ORDER BY created_at, proposal_id')
              .all(profileId)
          : sql
              .get(
                'SELECT body FROM proposals WHERE profile_id = ? AND status = ? ORDER BY created_at, proposal_id',
              )
              .all(profileId, status);
      return rows.map((row) => body<ProposalRecord>(row));
    },
    insertProposal(proposal) {
      sql
        .get(`INSERT INTO proposals (${PROPOSAL_COLUMNS}) VALUES (${placeholders(PROPOSAL_COLUMNS)})`)
        .run(...proposalRow(proposal));
    },
    transitionProposal(proposalId, expected, patch) {
      // Fields given as undefined are left alone, as JSON.stringify would drop them.
      const paths: string[] = [];
      const values: SQLInputValue[] = [];
      for (const [field, value] of Object.entries(patch)) {
        if (value === undefined) continue;
        paths.push(`'$.${field}', json(?)`);
        values.push(toJson(value));
      }
      const setBody = paths.length === 0 ? '' : `, body = json_set(body, ${paths.join(', ')})`;
      const row = sql
        .get(`UPDATE proposals SET status = ?${setBody} WHERE proposal_id = ? AND status = ? RETURNING body`)
        .get(patch.status ?? expected, ...values, proposalId, expected);
      return bodyOf<ProposalRecord>(row);
    },
    appendClaimHistory(entries) {
      const insert = sql.get(
        'INSERT INTO claim_history (claim_id, profile_id, at, at_ms, body) VALUES (?, ?, ?, ?, ?)',
      );
      for (const entry of entries) {
        insert.run(entry.claim_id, entry.profile_id, entry.at, instant(entry.at), toJson(entry));
      }
    },
    listClaimHistory(filter) {
      const { clauses, limit } = claimHistoryWalk(filter);
      return claimHistoryPageOf(
        sql
          .get(`SELECT seq, body FROM claim_history WHERE ${whereOf(clauses)} ORDER BY seq LIMIT ?`)
          .all(...(valuesOf(clauses) as SQLInputValue[]), limit + 1),
        limit,
      );
    },
  };
}
