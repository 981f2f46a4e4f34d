import type { ProviderStore, Store, StoreReader, StoreWriter } from './store.ts';

// The store's method names as values (store.ts holds its types): what the drivers build their
// facades from, and the read-only view operations get.

/**
 * Every writer method's name, typed the same way: a writer added to StoreWriter without listing
 * it here fails to compile. Implementations build their writer side from it.
 */
export const STORE_WRITERS: { readonly [K in keyof StoreWriter]: true } = {
  insertProfile: true,
  touchProfile: true,
  putClaims: true,
  deleteClaims: true,
  putModifiers: true,
  deleteProfile: true,
  insertGrant: true,
  revokeGrant: true,
  putClient: true,
  insertSigningKey: true,
  putSettingIfAbsent: true,
  putSetting: true,
  deleteSetting: true,
  appendAudit: true,
  pruneAudit: true,
  pruneAuditKeySets: true,
  pruneRefreshTokens: true,
  pruneGrantRequests: true,
  pruneUnusedClients: true,
  insertSubject: true,
  insertSession: true,
  deleteSession: true,
  insertGrantRequest: true,
  rememberPairwiseSubject: true,
  transitionGrantRequest: true,
  shortenGrantExpiry: true,
  insertTokenFamily: true,
  revokeTokenFamily: true,
  insertRefreshToken: true,
  rotateRefreshToken: true,
  insertRefreshChain: true,
  advanceRefreshChain: true,
  insertProposal: true,
  transitionProposal: true,
  deleteModifiers: true,
  appendClaimHistory: true,
  insertCrossDomainReview: true,
  decideCrossDomainReview: true,
  appendChange: true,
  markGrantExpiryAnnounced: true,
  putA2aTask: true,
  deleteA2aTasksOf: true,
  deleteA2aTasksReading: true,
  trimA2aTasksOf: true,
  pruneA2aTasks: true,
  addResourceSubscription: true,
  removeResourceSubscription: true,
  clearResourceSubscriptions: true,
  insertConsentReceipt: true,
  insertPasskey: true,
  usePasskey: true,
  deletePasskey: true,
  putPasskeyTicket: true,
  takePasskeyTicket: true,
  prunePasskeyTickets: true,
};

/**
 * Every reader method's name: typed as a record over `keyof`, so a reader added to StoreReader
 * without listing it here fails to compile. Implementations build their reader side from it, and
 * `readOnlyView` the store operations see.
 */
export const STORE_READERS: { readonly [K in keyof StoreReader]: true } = {
  getProfileBySubject: true,
  getProfile: true,
  getProfileContent: true,
  listClaims: true,
  listModifiers: true,
  listClaimChanges: true,
  getGrant: true,
  listGrantsBySubject: true,
  getClient: true,
  subjectForPairwise: true,
  listClients: true,
  listSigningKeys: true,
  getSetting: true,
  listAudit: true,
  countProfiles: true,
  getSubject: true,
  getSubjectByUsername: true,
  getSession: true,
  getGrantRequest: true,
  listGrantRequestsByPackage: true,
  listPendingGrantRequestsBySubject: true,
  getTokenFamily: true,
  getRefreshToken: true,
  getRefreshChain: true,
  listTokenFamiliesByGrant: true,
  getProposal: true,
  listProposals: true,
  listClaimHistory: true,
  getCrossDomainReview: true,
  listCrossDomainReviewsByGrant: true,
  listCrossDomainReviewsBySubject: true,
  listChanges: true,
  latestChangeSeq: true,
  getA2aTask: true,
  listA2aTasks: true,
  listResourceSubscriptions: true,
  getConsentReceipt: true,
  listConsentReceiptsBySubject: true,
  findConsentReceipt: true,
  listPasskeys: true,
  getPasskey: true,
  getPasskeyTicket: true,
};

/**
 * The store as operations see it (Deps.store): its readers, the audit append, transaction and
 * close, and nothing else, so that no write can be made outside a transaction even by a cast.
 */
export function readOnlyView(store: Store): ProviderStore {
  const view: Record<string, unknown> = {};
  for (const name of Object.keys(STORE_READERS)) view[name] = store[name as keyof StoreReader];
  return {
    ...(view as unknown as StoreReader),
    appendAudit: store.appendAudit,
    transaction: store.transaction,
    close: store.close,
    ...(store.freshReads === undefined ? {} : { freshReads: store.freshReads }),
  };
}
