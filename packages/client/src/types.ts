import type { components } from './generated/openapi.ts';

// Friendly names for the provider's OpenAPI components (src/generated/openapi.ts).
type Schemas = components['schemas'];

export type Claim = Schemas['Claim'];
export type EffectiveProfile = Schemas['EffectiveProfile'];
export type ProfileSummary = Schemas['ProfileSummary'];
export type ConsentGrant = Schemas['ConsentGrant'];
export type DerivedView = Schemas['DerivedView'];
export type DiscoveryCard = Schemas['DiscoveryCard'];
export type Tokens = Schemas['Tokens'];
export type PpxErrorBody = Schemas['Error'];
export type WritebackResponse = Schemas['WritebackResponse'];
export type ProposalOutcome = Schemas['ProposalOutcome'];
export type QueryRequest = Schemas['QueryClaimsRequest'];
export type EffectiveRequest = Schemas['GetEffectiveProfileRequest'];
export type Purpose = NonNullable<EffectiveRequest['purpose']>;
/** A context for `effective` and the derived views: `{occasion: "evening", …}`. */
export type Context = NonNullable<EffectiveRequest['context']>;
type ConsentRequestBody = Schemas['RequestConsentRequest'];
/** What a grantee asks for with consent-v2; the fields with a default may be left out. */
export type GrantRequest = Omit<
  ConsentRequestBody,
  | 'client_id'
  | 'code_challenge'
  | 'code_challenge_method'
  | 'cross_domain_transfer'
  | 'writeback_policy'
  | 'requested_duration_days'
  | 'access_mode'
> &
  Partial<
    Pick<
      ConsentRequestBody,
      'cross_domain_transfer' | 'writeback_policy' | 'requested_duration_days' | 'access_mode'
    >
  >;
/** A claim as proposed: `claim_id` may be left out (the provider gives one). */
export type ProposedClaim = Omit<Claim, 'claim_id'> & { claim_id?: string };
