import type { z } from 'zod';
import { ConfirmInput, confirmUpdates } from '../../operations/writeback/confirm.ts';
import {
  ClaimParams,
  DeletionResult,
  deleteClaim,
  deleteNamespace,
  deleteWholeProfile,
  NamespaceParams,
} from '../../operations/writeback/delete.ts';
import { WritebackResponse } from '../../operations/writeback/envelope.ts';
import {
  DiffQuery,
  DiffResponse,
  diffProfile,
  HistoryPage,
  HistoryQuery,
  listClaimHistory,
} from '../../operations/writeback/history.ts';
import { ProposeInput, proposeUpdates } from '../../operations/writeback/propose.ts';
import {
  getSensitiveKeys,
  SensitiveKeys,
  SensitiveKeysInput,
  setSensitiveKeys,
} from '../../operations/writeback/sensitive-keys.ts';
import { AUTH_ERRORS, BODY_ERRORS, caller, type Route } from './route.ts';

// Write-back, review history and deletion over HTTP (docs/writeback.md): the routes only
// translate; every rule lives in src/operations/writeback/. Concatenated into ROUTES by routes.ts.

const SUBJECT_ERRORS = [...AUTH_ERRORS, 'invalid_request', 'access_denied', 'not_found'];

export const WRITEBACK_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/profile/propose-updates',
    operationId: 'proposeUpdates',
    summary:
      "Propose new or changed claims; the grant's writeback policy applies them, queues them for the subject (202) or refuses",
    tag: 'profile',
    auth: 'bearer',
    body: ProposeInput,
    response: WritebackResponse,
    acceptedWhen: (value) => (value as WritebackResponse).writeback === 'proposal_created',
    errors: [
      ...AUTH_ERRORS,
      'invalid_request',
      'insufficient_scope',
      'writeback_forbidden',
      'not_found',
      ...BODY_ERRORS,
    ],
    run: (deps, input) => proposeUpdates(deps, caller(input), input.body as ProposeInput),
  },
  {
    method: 'POST',
    path: '/v1/profile/confirm-updates',
    operationId: 'confirmUpdates',
    summary:
      'The subject (or a grant with confirm_update) confirms, edits or rejects pending proposals, or confirms a claim',
    tag: 'profile',
    auth: 'bearer',
    body: ConfirmInput,
    response: WritebackResponse,
    errors: [
      ...AUTH_ERRORS,
      'invalid_request',
      'insufficient_scope',
      'not_found',
      'conflict',
      ...BODY_ERRORS,
    ],
    run: (deps, input) => confirmUpdates(deps, caller(input), input.body as ConfirmInput),
  },
  {
    method: 'GET',
    path: '/v1/profile/history',
    operationId: 'listClaimHistory',
    summary: 'Every change to the subject’s claims, oldest first, by claim and time; subject token only',
    tag: 'profile',
    auth: 'bearer',
    query: HistoryQuery,
    response: HistoryPage,
    errors: SUBJECT_ERRORS,
    run: (deps, input) => listClaimHistory(deps, caller(input), input.query as HistoryQuery),
  },
  {
    method: 'GET',
    path: '/v1/profile/diff',
    operationId: 'diffProfile',
    summary:
      'Claims added, changed and removed between two instants, with before and after; subject token only',
    tag: 'profile',
    auth: 'bearer',
    query: DiffQuery,
    response: DiffResponse,
    errors: SUBJECT_ERRORS,
    run: (deps, input) => diffProfile(deps, caller(input), input.query as DiffQuery),
  },
  {
    method: 'DELETE',
    path: '/v1/profile/claims/:claim_id',
    operationId: 'deleteClaim',
    summary: 'Delete one claim; subject token only',
    tag: 'profile',
    auth: 'bearer',
    params: ClaimParams,
    response: DeletionResult,
    errors: SUBJECT_ERRORS,
    run: (deps, input) => deleteClaim(deps, caller(input), input.params as z.infer<typeof ClaimParams>),
  },
  {
    method: 'DELETE',
    path: '/v1/profile/namespaces/:namespace',
    operationId: 'deleteNamespace',
    summary: 'Delete every claim and context modifier of a namespace; subject token only',
    tag: 'profile',
    auth: 'bearer',
    params: NamespaceParams,
    response: DeletionResult,
    errors: [...SUBJECT_ERRORS, 'unknown_namespace'],
    run: (deps, input) =>
      deleteNamespace(deps, caller(input), input.params as z.infer<typeof NamespaceParams>),
  },
  {
    method: 'DELETE',
    path: '/v1/profile',
    operationId: 'deleteProfile',
    summary:
      'Delete the whole profile (claims, modifiers, proposals); grants stay as evidence; subject token only',
    tag: 'profile',
    auth: 'bearer',
    response: DeletionResult,
    errors: SUBJECT_ERRORS,
    run: (deps, input) => deleteWholeProfile(deps, caller(input)),
  },
  {
    method: 'GET',
    path: '/v1/profile/sensitive-keys',
    operationId: 'getSensitiveKeys',
    summary: 'The keys the subject marked sensitive (never auto-applied from a proposal); subject token only',
    tag: 'profile',
    auth: 'bearer',
    response: SensitiveKeys,
    errors: SUBJECT_ERRORS,
    run: (deps, input) => getSensitiveKeys(deps, caller(input)),
  },
  {
    method: 'POST',
    path: '/v1/profile/sensitive-keys',
    operationId: 'setSensitiveKeys',
    summary: 'Replace the list of sensitive keys (registered keys only); subject token only',
    tag: 'profile',
    auth: 'bearer',
    body: SensitiveKeysInput,
    response: SensitiveKeys,
    errors: [...SUBJECT_ERRORS, ...BODY_ERRORS],
    run: (deps, input) => setSensitiveKeys(deps, caller(input), input.body as SensitiveKeysInput),
  },
];
