import { ConfirmInput, confirmUpdates } from '../writeback/confirm.ts';
import {
  ClaimParams,
  DeletionResult,
  deleteClaim,
  deleteNamespace,
  deleteWholeProfile,
  NamespaceParams,
} from '../writeback/delete.ts';
import { WritebackResponse } from '../writeback/envelope.ts';
import {
  DiffQuery,
  DiffResponse,
  diffProfile,
  HistoryPage,
  HistoryQuery,
  listClaimHistory,
} from '../writeback/history.ts';
import { ProposeInput, proposeUpdates } from '../writeback/propose.ts';
import {
  getSensitiveKeys,
  SensitiveKeys,
  SensitiveKeysInput,
  setSensitiveKeys,
} from '../writeback/sensitive-keys.ts';
import { defineOperation } from './contract.ts';
import { EMPTY_INPUT, SUBJECT_ERRORS } from './shared.ts';

// Write-back, review history and deletion (SPEC §9, §6.6; docs/writeback.md). Every rule lives in
// operations/writeback/.

export const proposeUpdatesOperation = defineOperation({
  name: 'propose_updates',
  title: 'Propose profile updates',
  summary:
    "Propose new or changed claims; the grant's writeback policy applies them, queues them for the subject (202) or refuses",
  description:
    'Proposes new or changed claims (namespace, key, type, value, confidence, source). The grant applies them, or queues them for the owner (writeback "proposal_created": do not resend), or refuses.',
  caller: 'caller',
  grant: { operation: 'propose_update', writes: true },
  audit: ['proposal_created', 'proposal_applied'],
  input: ProposeInput,
  output: WritebackResponse,
  follows: { object: 'claim', at: 'claims' },
  errors: ['invalid_request', 'insufficient_scope', 'writeback_forbidden', 'not_found'],
  run: (deps, caller, input) => proposeUpdates(deps, caller, input),
  agui: { writes: true },
  http: {
    method: 'POST',
    path: '/v1/profile/propose-updates',
    tag: 'profile',
    input: 'body',
    acceptedWhen: (value) => value.writeback === 'proposal_created',
  },
  // Destructive: under `allow` (or a low-risk proposal under `auto_for_low_risk`) a proposal
  // replaces the value of an existing claim, which is not an additive update (MCP annotations).
  mcp: {
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    grantIds: 'write',
    shows: ['claims', 'writeback', 'proposals'],
  },
  a2a: {
    skill: 'propose_update',
    tags: ['ppx', 'profile', 'writeback'],
    examples: ['The person just said they love vetiver: propose it as a stated preference.'],
  },
});

export const confirmUpdatesOperation = defineOperation({
  name: 'confirm_updates',
  title: 'Confirm pending updates',
  summary:
    'The subject (or a grant with confirm_update) confirms, edits or rejects pending proposals, or confirms a claim',
  description:
    'Confirms, edits or rejects pending proposals, or confirms a stored claim, when the user has explicitly agreed. Each proposal is decided once.',
  caller: 'caller',
  grant: { operation: 'confirm_update' },
  audit: ['proposal_confirmed', 'proposal_rejected', 'claim_confirmed'],
  input: ConfirmInput,
  output: WritebackResponse,
  follows: { object: 'claim', at: 'claims' },
  errors: ['invalid_request', 'insufficient_scope', 'not_found', 'conflict'],
  run: (deps, caller, input) => confirmUpdates(deps, caller, input),
  agui: { writes: true },
  http: { method: 'POST', path: '/v1/profile/confirm-updates', tag: 'profile', input: 'body' },
  // Destructive: an `edit` decision replaces a claim's value, a `reject` drops a proposal.
  mcp: {
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    grantIds: 'write',
    shows: ['claims', 'decisions'],
  },
});

export const listClaimHistoryOperation = defineOperation({
  name: 'list_claim_history',
  title: 'Claim history',
  summary: 'Every change to the subject’s claims, oldest first, by claim and time; subject token only',
  caller: 'caller',
  audit: ['read'],
  input: HistoryQuery,
  output: HistoryPage,
  errors: SUBJECT_ERRORS,
  run: (deps, caller, input) => listClaimHistory(deps, caller, input),
  agui: { writes: false },
  http: { method: 'GET', path: '/v1/profile/history', tag: 'profile', input: 'query' },
});

export const diffProfileOperation = defineOperation({
  name: 'diff_profile',
  title: 'Profile changes',
  summary:
    'Claims added, changed and removed between two instants, with before and after; subject token only',
  caller: 'caller',
  audit: ['read'],
  input: DiffQuery,
  output: DiffResponse,
  errors: SUBJECT_ERRORS,
  run: (deps, caller, input) => diffProfile(deps, caller, input),
  agui: { writes: false },
  http: { method: 'GET', path: '/v1/profile/diff', tag: 'profile', input: 'query' },
});

export const deleteClaimOperation = defineOperation({
  name: 'delete_claim',
  title: 'Delete a claim',
  summary: 'Delete one claim; subject token only',
  caller: 'caller',
  audit: ['claim_deleted'],
  input: ClaimParams,
  output: DeletionResult,
  errors: SUBJECT_ERRORS,
  run: (deps, caller, input) => deleteClaim(deps, caller, input),
  agui: { writes: true },
  http: { method: 'DELETE', path: '/v1/profile/claims/:claim_id', tag: 'profile', input: 'path' },
});

export const deleteNamespaceOperation = defineOperation({
  name: 'delete_namespace',
  title: 'Delete an area',
  summary: 'Delete every claim and context modifier of a namespace; subject token only',
  caller: 'caller',
  audit: ['claim_deleted'],
  input: NamespaceParams,
  output: DeletionResult,
  errors: [...SUBJECT_ERRORS, 'unknown_namespace'],
  run: (deps, caller, input) => deleteNamespace(deps, caller, input),
  agui: { writes: true },
  http: { method: 'DELETE', path: '/v1/profile/namespaces/:namespace', tag: 'profile', input: 'path' },
});

export const deleteProfileOperation = defineOperation({
  name: 'delete_profile',
  title: 'Delete the profile',
  summary:
    'Delete the whole profile (claims, modifiers, proposals); grants stay as evidence; subject token only',
  caller: 'caller',
  audit: ['profile_deleted'],
  input: EMPTY_INPUT,
  output: DeletionResult,
  errors: SUBJECT_ERRORS,
  run: (deps, caller) => deleteWholeProfile(deps, caller),
  agui: { writes: true },
  http: { method: 'DELETE', path: '/v1/profile', tag: 'profile', input: 'none' },
});

export const getSensitiveKeysOperation = defineOperation({
  name: 'get_sensitive_keys',
  title: 'Sensitive keys',
  summary: 'The keys the subject marked sensitive (never auto-applied from a proposal); subject token only',
  caller: 'caller',
  // The subject reading their own setting: not access to a claim, not audited.
  audit: [],
  input: EMPTY_INPUT,
  output: SensitiveKeys,
  errors: SUBJECT_ERRORS,
  run: (deps, caller) => getSensitiveKeys(deps, caller),
  agui: { writes: false },
  http: { method: 'GET', path: '/v1/profile/sensitive-keys', tag: 'profile', input: 'none' },
});

export const setSensitiveKeysOperation = defineOperation({
  name: 'set_sensitive_keys',
  title: 'Mark keys sensitive',
  summary: 'Replace the list of sensitive keys (registered keys only); subject token only',
  caller: 'caller',
  audit: ['sensitive_keys_changed'],
  input: SensitiveKeysInput,
  output: SensitiveKeys,
  errors: SUBJECT_ERRORS,
  run: (deps, caller, input) => setSensitiveKeys(deps, caller, input),
  agui: { writes: true },
  http: { method: 'POST', path: '/v1/profile/sensitive-keys', tag: 'profile', input: 'body' },
});
