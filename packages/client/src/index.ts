// @ppx-provider/client: a grantee's client for PPX providers (README.md).
export {
  type AgentTool,
  type AgentToolOptions,
  agentTools,
  type JsonSchema,
  runTool,
  toAiSdkTools,
  toAnthropicTools,
  toOpenAITools,
} from './agent-tools.ts';
export { type ClientOptions, PpxClient, type TokenAnswer } from './client.ts';
export { type Decision, decisionFromRedirect, type PendingGrant } from './consent.ts';
export { discover, type OAuthMetadata, type Provider } from './discovery.ts';
export { DpopKey } from './dpop.ts';
export { Grant, type ProposeResult } from './grant.ts';
export { GrantPackage } from './grant-package.ts';
export type { Answer, Fetch } from './http.ts';
export { type KeyLookup, lookup } from './lookup.ts';
export {
  type AuthorizationRequest,
  authorizationUrl,
  clientMetadataDocument,
  exchangeCode,
  type PendingAuthorization,
} from './oauth.ts';
export {
  type DetailOutcome,
  exchangePackageCode,
  type PackageElement,
  type PackageRequest,
  type PackageTokens,
  packageAuthorizationUrl,
} from './package.ts';
export { createPkce, type Pkce } from './pkce.ts';
export type { ClientCode, ClientError, PpxCode, Result } from './result.ts';
export { MemoryTokenStore, PACKAGE_PREFIX, type StoredTokens, type TokenStore } from './token-store.ts';
export type {
  Claim,
  ConsentGrant,
  Context,
  DerivedView,
  DiscoveryCard,
  EffectiveProfile,
  EffectiveRequest,
  GrantRequest,
  PpxErrorBody,
  ProfileSummary,
  ProposalOutcome,
  ProposedClaim,
  Purpose,
  QueryRequest,
  Tokens,
  WritebackResponse,
} from './types.ts';
export { type WaitOptions, waitForDecision } from './wait.ts';
