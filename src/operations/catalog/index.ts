import {
  approveGrantRequestOperation,
  exchangeGrantRequestOperation,
  refreshGrantTokensOperation,
  rejectGrantRequestOperation,
  requestConsentOperation,
} from './consent.ts';
import type { CatalogOperation } from './contract.ts';
import { DERIVED_VIEW_OPERATIONS } from './derived-views.ts';
import { getDiscoveryCardOperation, listAuditEventsOperation, listExtensionsOperation } from './discovery.ts';
import {
  listConsentGrantsOperation,
  listGrantedAccessOperation,
  listGrantUsageOperation,
  revokeConsentGrantOperation,
} from './grants.ts';
import {
  exportProfileOperation,
  getEffectiveProfileOperation,
  getProfileSummaryOperation,
  queryClaimsOperation,
} from './profile.ts';
import {
  approveCrossDomainReviewOperation,
  listCrossDomainReviewsOperation,
  rejectCrossDomainReviewOperation,
} from './reviews.ts';
import {
  confirmUpdatesOperation,
  deleteClaimOperation,
  deleteNamespaceOperation,
  deleteProfileOperation,
  diffProfileOperation,
  getSensitiveKeysOperation,
  listClaimHistoryOperation,
  proposeUpdatesOperation,
  setSensitiveKeysOperation,
} from './writeback.ts';

/**
 * Every operation a client can call, each declared once (contract.ts). Surfaces list them in this
 * order: the MCP tools start with child discovery, then the reads, the writes, the grant.
 */
export const CATALOG: readonly CatalogOperation[] = [
  getDiscoveryCardOperation,
  listExtensionsOperation,
  listGrantedAccessOperation,
  getProfileSummaryOperation,
  queryClaimsOperation,
  getEffectiveProfileOperation,
  proposeUpdatesOperation,
  confirmUpdatesOperation,
  listConsentGrantsOperation,
  revokeConsentGrantOperation,
  listGrantUsageOperation,
  exportProfileOperation,
  listAuditEventsOperation,
  requestConsentOperation,
  approveGrantRequestOperation,
  rejectGrantRequestOperation,
  exchangeGrantRequestOperation,
  refreshGrantTokensOperation,
  listClaimHistoryOperation,
  diffProfileOperation,
  deleteClaimOperation,
  deleteNamespaceOperation,
  deleteProfileOperation,
  getSensitiveKeysOperation,
  setSensitiveKeysOperation,
  listCrossDomainReviewsOperation,
  approveCrossDomainReviewOperation,
  rejectCrossDomainReviewOperation,
  ...DERIVED_VIEW_OPERATIONS,
];

export type * from './contract.ts';
export { operationIdOf, toolNameOf } from './contract.ts';
