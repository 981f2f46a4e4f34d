import { z } from 'zod';
import { AuditAction, AuditEvent } from '../../model/audit-event.ts';
import { ConsentGrant } from '../../model/consent-grant.ts';
import { DiscoveryCard } from '../../model/discovery-card.ts';
import { EffectiveProfile } from '../../model/effective-profile.ts';
import { ok } from '../../model/errors.ts';
import { ExtensionDescriptor } from '../../model/extension-descriptor.ts';
import { Profile } from '../../model/profile.ts';
import { ProfileSummary } from '../../model/summary.ts';
import { DateTime } from '../../model/vocabulary.ts';
import { listAuditEvents } from '../../operations/audit.ts';
import { discoveryCard, listExtensions } from '../../operations/discovery.ts';
import { exportProfile } from '../../operations/export-profile.ts';
import { listConsentGrants, RevokeInput, revokeConsentGrant } from '../../operations/grants.ts';
import {
  EffectiveInput,
  getEffectiveProfile,
  getProfileSummary,
  QueryInput,
  queryClaims,
} from '../../operations/profile-reads.ts';
import { CONSENT_ROUTES } from './consent-routes.ts';
import { DERIVED_VIEW_ROUTES } from './derived-view-routes.ts';
import { REVIEW_ROUTES } from './review-routes.ts';
import { AUTH_ERRORS, BODY_ERRORS, caller, READ_ERRORS, type Route } from './route.ts';
import { WRITEBACK_ROUTES } from './writeback-routes.ts';

// The HTTP surface as data: each route names its input and output schemas and the operation it
// calls. The server registers these routes and the OpenAPI document is generated from them, so
// the two cannot drift apart.

const AuditQuery = z.strictObject({
  grant_id: z.string().max(300).optional(),
  action: AuditAction.optional(),
  kind: AuditAction.optional(),
  grantee: z.string().min(1).max(300).optional(),
  since: DateTime.optional(),
  until: DateTime.optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

const AuditPage = z.strictObject({ events: z.array(AuditEvent), next_cursor: z.string().optional() });

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/.well-known/ppx-card.json',
    operationId: 'getDiscoveryCard',
    summary: 'Provider discovery card (SPEC §7)',
    tag: 'discovery',
    auth: 'none',
    response: DiscoveryCard,
    errors: [],
    run: async (deps) => ok(discoveryCard(deps.provider)),
  },
  {
    method: 'GET',
    path: '/v1/extensions',
    operationId: 'listExtensions',
    summary: 'Supported extension vocabularies with versions',
    tag: 'extensions',
    auth: 'none',
    response: z.strictObject({ extensions: z.array(ExtensionDescriptor) }),
    errors: [],
    run: async () => ok(listExtensions()),
  },
  {
    method: 'GET',
    path: '/v1/profile/summary',
    operationId: 'getProfileSummary',
    summary:
      'Redacted summary of the claims visible to the caller: keys, provenance, confidence band, no values',
    tag: 'profile',
    auth: 'bearer',
    response: ProfileSummary,
    errors: READ_ERRORS,
    run: (deps, input) => getProfileSummary(deps, caller(input)),
  },
  {
    method: 'POST',
    path: '/v1/profile/query',
    operationId: 'queryClaims',
    summary: 'Query visible claims by namespace, key, domain, provenance or confidence',
    tag: 'profile',
    auth: 'bearer',
    body: QueryInput,
    response: EffectiveProfile,
    errors: [...READ_ERRORS, ...BODY_ERRORS],
    run: (deps, input) => queryClaims(deps, caller(input), input.body as QueryInput),
  },
  {
    method: 'POST',
    path: '/v1/profile/effective',
    operationId: 'getEffectiveProfile',
    summary: 'Visible claims with the context modifiers that match the supplied context applied',
    tag: 'profile',
    auth: 'bearer',
    body: EffectiveInput,
    response: EffectiveProfile,
    errors: [...READ_ERRORS, ...BODY_ERRORS],
    run: (deps, input) => getEffectiveProfile(deps, caller(input), input.body as EffectiveInput),
  },
  {
    method: 'GET',
    path: '/v1/consent/grants',
    operationId: 'listConsentGrants',
    summary: "The subject's grants (subject token) or the caller's own grant (grant token)",
    tag: 'consent',
    auth: 'bearer',
    response: z.strictObject({ grants: z.array(ConsentGrant) }),
    errors: AUTH_ERRORS,
    run: (deps, input) => listConsentGrants(deps, caller(input)),
  },
  {
    method: 'POST',
    path: '/v1/consent/revoke',
    operationId: 'revokeConsentGrant',
    summary: 'Revoke a grant; every token bound to it fails on its next request',
    tag: 'consent',
    auth: 'bearer',
    body: RevokeInput,
    response: z.strictObject({ grant: ConsentGrant }),
    errors: [...AUTH_ERRORS, 'invalid_request', 'not_found', ...BODY_ERRORS],
    run: (deps, input) => revokeConsentGrant(deps, caller(input), input.body as z.infer<typeof RevokeInput>),
  },
  {
    method: 'GET',
    path: '/v1/audit/events',
    operationId: 'listAuditEvents',
    summary: "Audit log: all of the subject's events, or a grantee's own",
    tag: 'audit',
    auth: 'bearer',
    query: AuditQuery,
    response: AuditPage,
    errors: [...AUTH_ERRORS, 'invalid_request'],
    run: (deps, input) => listAuditEvents(deps, caller(input), input.query as z.infer<typeof AuditQuery>),
  },
  {
    method: 'POST',
    path: '/v1/export',
    operationId: 'exportProfile',
    summary: "The profile in PPX format: all of it for the subject, the grant's scope for an export grant",
    tag: 'export',
    auth: 'bearer',
    body: z.strictObject({}),
    response: Profile,
    errors: [...AUTH_ERRORS, 'insufficient_scope', 'not_found', 'invalid_request', ...BODY_ERRORS],
    run: (deps, input) => exportProfile(deps, caller(input)),
  },
  ...CONSENT_ROUTES,
  ...WRITEBACK_ROUTES,
  ...REVIEW_ROUTES,
  ...DERIVED_VIEW_ROUTES,
];
