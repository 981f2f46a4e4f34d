import type { StoreTx } from './store.ts';

// The store's methods by area, one query factory per area on each driver, with the same names and
// file names on both sides (`sqlite/record-queries.ts` ↔ `postgres/record-queries.ts`, …). Each
// driver's composition (`sqlite/queries.ts#sqliteQueries`, `postgres/queries.ts#postgresQueries`)
// spreads its factories into one object typed as the whole StoreTx (Sync<StoreTx> on SQLite), so a
// method added to the contract and to no area fails to compile on both.

/** The synchronous counterpart of an async interface: same parameters, unwrapped results. */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

/** Profiles, claims, modifiers, grants, clients, signing keys and settings. */
export type RecordArea = Pick<
  StoreTx,
  | 'getProfileBySubject'
  | 'getProfile'
  | 'getProfileContent'
  | 'listClaims'
  | 'listClaimChanges'
  | 'listModifiers'
  | 'getGrant'
  | 'listGrantsBySubject'
  | 'getClient'
  | 'listClients'
  | 'listSigningKeys'
  | 'getSetting'
  | 'countProfiles'
  | 'insertProfile'
  | 'touchProfile'
  | 'putClaims'
  | 'deleteClaims'
  | 'putModifiers'
  | 'deleteModifiers'
  | 'deleteProfile'
  | 'insertGrant'
  | 'revokeGrant'
  | 'putClient'
  | 'insertSigningKey'
  | 'putSettingIfAbsent'
  | 'putSetting'
  | 'deleteSetting'
>;

/** The consent side: subjects, sessions, pairwise ids, grant requests, token families, refresh tokens. */
export type ConsentArea = Pick<
  StoreTx,
  | 'getSubject'
  | 'getSubjectByUsername'
  | 'getSession'
  | 'getGrantRequest'
  | 'getTokenFamily'
  | 'getRefreshToken'
  | 'getRefreshChain'
  | 'listTokenFamiliesByGrant'
  | 'subjectForPairwise'
  | 'listGrantRequestsByPackage'
  | 'listPendingGrantRequestsBySubject'
  | 'insertSubject'
  | 'insertSession'
  | 'deleteSession'
  | 'rememberPairwiseSubject'
  | 'insertGrantRequest'
  | 'transitionGrantRequest'
  | 'shortenGrantExpiry'
  | 'insertTokenFamily'
  | 'revokeTokenFamily'
  | 'insertRefreshToken'
  | 'pruneRefreshTokens'
  | 'pruneGrantRequests'
  | 'pruneUnusedClients'
  | 'rotateRefreshToken'
  | 'insertRefreshChain'
  | 'advanceRefreshChain'
>;

/** The audit log. */
export type AuditArea = Pick<StoreTx, 'appendAudit' | 'listAudit' | 'pruneAudit' | 'pruneAuditKeySets'>;

/** Cross-domain transfer reviews. */
export type ReviewArea = Pick<
  StoreTx,
  | 'getCrossDomainReview'
  | 'listCrossDomainReviewsByGrant'
  | 'listCrossDomainReviewsBySubject'
  | 'insertCrossDomainReview'
  | 'decideCrossDomainReview'
>;

/** Write-back: proposals and claim history. */
export type WritebackArea = Pick<
  StoreTx,
  | 'getProposal'
  | 'listProposals'
  | 'listClaimHistory'
  | 'insertProposal'
  | 'transitionProposal'
  | 'appendClaimHistory'
>;

/** The change-event outbox. */
export type ChangeArea = Pick<
  StoreTx,
  'listChanges' | 'latestChangeSeq' | 'appendChange' | 'markGrantExpiryAnnounced'
>;

/** A2A tasks. */
export type A2aTaskArea = Pick<
  StoreTx,
  | 'getA2aTask'
  | 'listA2aTasks'
  | 'putA2aTask'
  | 'deleteA2aTasksOf'
  | 'deleteA2aTasksReading'
  | 'trimA2aTasksOf'
  | 'pruneA2aTasks'
>;

/** MCP resource subscriptions (by grant). */
export type ResourceSubscriptionArea = Pick<
  StoreTx,
  | 'listResourceSubscriptions'
  | 'addResourceSubscription'
  | 'removeResourceSubscription'
  | 'clearResourceSubscriptions'
>;

/** Signed consent receipts. */
export type ConsentReceiptArea = Pick<
  StoreTx,
  'getConsentReceipt' | 'listConsentReceiptsBySubject' | 'findConsentReceipt' | 'insertConsentReceipt'
>;

/** Passkeys and their tickets (passkeys.ts). */
export type PasskeyArea = Pick<
  StoreTx,
  | 'listPasskeys'
  | 'getPasskey'
  | 'getPasskeyTicket'
  | 'insertPasskey'
  | 'usePasskey'
  | 'deletePasskey'
  | 'putPasskeyTicket'
  | 'takePasskeyTicket'
  | 'prunePasskeyTickets'
>;
