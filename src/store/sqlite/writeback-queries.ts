import type { SQLInputValue } from 'node:sqlite';
import type { ClaimHistoryEntry, ClaimHistoryInput } from '../../model/claim-history.ts';
import type { ProposalRecord, ProposalStatus } from '../../model/proposal.ts';
import type { ClaimHistoryFilter, ClaimHistoryPage, ProposalPatch } from '../writeback-store.ts';
import { ReviewQueries } from './review-queries.ts';
import { body, instant, integer, type StatementCache, seqPage, toJson } from './rows.ts';

/**
 * The write-back side of the store (proposals, claim history; migration 0005) as synchronous SQL.
 * It sits between ReviewQueries (which extends ConsentQueries) and SqliteQueries in the class
 * chain, so SqliteQueries has every method the facade lists. As there, the caller runs each write in a transaction or savepoint.
 *
 * transitionProposal is compare-and-set in the UPDATE's own WHERE clause and rewrites `body`
 * with json_set in the same statement, like transitionGrantRequest.
 */
export class WritebackQueries extends ReviewQueries {
  readonly #sql: StatementCache;

  constructor(sql: StatementCache) {
    super(sql);
    this.#sql = sql;
  }

  getProposal(proposalId: string): ProposalRecord | undefined {
    const row = this.#sql.get('SELECT body FROM proposals WHERE proposal_id = ?').get(proposalId);
    return row === undefined ? undefined : body<ProposalRecord>(row);
  }

  listProposals(profileId: string, status?: ProposalStatus): ProposalRecord[] {
    const rows =
      status === undefined
        ? this.#sql
            .get('SELECT body FROM proposals WHERE profile_id = ? ORDER BY created_at, proposal_id')
            .all(profileId)
        : this.#sql
            .get(
              'SELECT body FROM proposals WHERE profile_id = ? AND status = ? ORDER BY created_at, proposal_id',
            )
            .all(profileId, status);
    return rows.map((row) => body<ProposalRecord>(row));
  }

  insertProposal(proposal: ProposalRecord): void {
    this.#sql
      .get(
        `INSERT INTO proposals (proposal_id, profile_id, grant_id, client_id, status, created_at, body)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        proposal.proposal_id,
        proposal.profile_id,
        proposal.grant_id,
        proposal.client_id,
        proposal.status,
        proposal.created_at,
        toJson(proposal),
      );
  }

  transitionProposal(
    proposalId: string,
    expected: ProposalStatus,
    patch: ProposalPatch,
  ): ProposalRecord | undefined {
    // Fields given as undefined are left alone, as JSON.stringify would drop them.
    const paths: string[] = [];
    const values: SQLInputValue[] = [];
    for (const [field, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      paths.push(`'$.${field}', json(?)`);
      values.push(toJson(value));
    }
    const setBody = paths.length === 0 ? '' : `, body = json_set(body, ${paths.join(', ')})`;
    const row = this.#sql
      .get(`UPDATE proposals SET status = ?${setBody} WHERE proposal_id = ? AND status = ? RETURNING body`)
      .get(patch.status ?? expected, ...values, proposalId, expected);
    return row === undefined ? undefined : body<ProposalRecord>(row);
  }

  deleteModifiers(profileId: string, modifierIds: readonly string[]): number {
    const del = this.#sql.get('DELETE FROM modifiers WHERE profile_id = ? AND modifier_id = ?');
    let deleted = 0;
    for (const id of new Set(modifierIds)) deleted += Number(del.run(profileId, id).changes);
    return deleted;
  }

  appendClaimHistory(entries: readonly ClaimHistoryInput[]): void {
    const insert = this.#sql.get(
      'INSERT INTO claim_history (claim_id, profile_id, at, at_ms, body) VALUES (?, ?, ?, ?, ?)',
    );
    for (const entry of entries) {
      insert.run(entry.claim_id, entry.profile_id, entry.at, instant(entry.at), toJson(entry));
    }
  }

  listClaimHistory(filter: ClaimHistoryFilter): ClaimHistoryPage {
    const { rows, next_cursor } = seqPage(
      this.#sql,
      'claim_history',
      'history',
      [
        ['profile_id = ?', filter.profile_id],
        ['claim_id = ?', filter.claim_id],
        ['at_ms >= ?', filter.since === undefined ? undefined : instant(filter.since)],
        ['at_ms < ?', filter.until === undefined ? undefined : instant(filter.until)],
      ],
      filter.cursor,
      filter.limit,
    );
    const entries = rows.map(
      (row): ClaimHistoryEntry => ({ ...body<ClaimHistoryInput>(row), seq: integer(row, 'seq') }),
    );
    return next_cursor !== undefined ? { entries, next_cursor } : { entries };
  }
}
