import type { AuditAction, AuditEvent } from '../../../src/model/audit-event.ts';

// The activity log in the person's words (issue 26, item 3; docs/web-app.md, "The activity log"):
// each entry is one sentence that names the app and, for a refusal, says why; the "What happened"
// filter offers a handful of groups, each a set of audit actions, every action in exactly one.

/** The filter's groups, in the order the filter lists them. */
export const AUDIT_GROUPS = {
  reads: 'Your preferences being read',
  changes: 'Changes to your preferences',
  access: 'Access given or ended',
  refused: 'Refused requests',
  security: 'Keys and security',
} as const;

export type AuditGroup = keyof typeof AUDIT_GROUPS;

/** The group of each action: the compiler demands one for every action the model knows. */
export const GROUP_OF: Record<AuditAction, AuditGroup> = {
  read: 'reads',
  query: 'reads',
  effective: 'reads',
  summary: 'reads',
  export: 'reads',
  derived_view: 'reads',
  list_grants: 'reads',
  audit_read: 'reads',
  import: 'changes',
  proposal_created: 'changes',
  proposal_applied: 'changes',
  proposal_confirmed: 'changes',
  proposal_rejected: 'changes',
  claim_confirmed: 'changes',
  claim_deleted: 'changes',
  profile_deleted: 'changes',
  sensitive_keys_changed: 'changes',
  cross_domain_review_requested: 'changes',
  cross_domain_approved: 'changes',
  cross_domain_rejected: 'changes',
  grant_created: 'access',
  revoke: 'access',
  consent_rejected: 'access',
  denied: 'refused',
  token_issued: 'security',
  token_refreshed: 'security',
  refresh_reuse: 'security',
};

/** The actions of one group, for the listing's `action` filter (one query each). */
export function actionsOf(group: AuditGroup): AuditAction[] {
  return (Object.keys(GROUP_OF) as AuditAction[]).filter((a) => GROUP_OF[a] === group);
}

/**
 * What each action means, said of its actor; `{app}` is the app the entry is about (its grant's
 * app), for the entries the person or the service wrote about an app.
 */
export const ACTION_WORDS: Record<AuditAction, string> = {
  read: 'read your preferences',
  query: 'looked up some of your preferences',
  effective: 'read your preferences for a situation',
  summary: 'read a summary of your preferences',
  export: 'downloaded all your preferences',
  import: 'brought in preferences from a file',
  list_grants: 'looked at what it may see',
  revoke: 'ended {app}’s access',
  grant_created: 'gave {app} access',
  audit_read: 'looked at this list',
  denied: 'was refused',
  consent_rejected: 'said no to {app}',
  token_issued: 'received its key to your preferences',
  token_refreshed: 'renewed its key',
  refresh_reuse: 'used an old key again, so its access was stopped to be safe',
  derived_view: 'worked something out from some of your preferences',
  proposal_created: 'suggested a change to your preferences',
  proposal_applied: 'changed your preferences',
  proposal_confirmed: 'accepted a suggested change',
  proposal_rejected: 'turned down a suggested change',
  claim_confirmed: 'confirmed a preference',
  claim_deleted: 'removed a preference',
  profile_deleted: 'deleted your whole profile',
  sensitive_keys_changed: 'changed which preferences count as sensitive',
  cross_domain_review_requested: 'asked to use preferences from one area of life in another',
  cross_domain_approved: 'allowed preferences to be used in another area of life',
  cross_domain_rejected: 'refused to let preferences be used in another area of life',
};

/** Why a request was refused, by the PPX code its entry records (`detail`: "<label>: <code>"). */
export const REFUSAL_WORDS: Readonly<Record<string, string>> = {
  grant_revoked: 'its access had been ended',
  grant_expired: 'its access had run out',
  insufficient_scope: 'it asked for something outside what you allowed it to see',
  cross_domain_denied:
    'it asked to use preferences from one area of life in another, which you have not allowed',
  writeback_forbidden: 'it may not change your preferences',
  rate_limited: 'it asked too often',
  invalid_token: 'its key was not valid',
  invalid_request: 'its request was not valid',
  not_found: 'it asked for something that does not exist',
  unknown_namespace: 'it asked about a kind of preference this service does not know',
  access_denied: 'it is not allowed to do that',
  conflict: 'it clashed with a change made just before',
  payload_too_large: 'it sent too much at once',
};

const CODE = /: ([a-z_]+)$/;

/** The reason of a refused entry, in words; what the entry does not say is said as unknown. */
export function refusalWords(e: Pick<AuditEvent, 'action' | 'detail'>): string {
  if (e.action === 'refresh_reuse') return 'an old key was used again, which only a stolen key would do';
  if (e.action === 'revoke' && e.detail?.includes('presented again'))
    return 'a one-time sign-in code was used again, so its access was ended to be safe';
  const code = CODE.exec(e.detail ?? '')?.[1];
  if (code !== undefined && REFUSAL_WORDS[code] !== undefined) return REFUSAL_WORDS[code];
  return 'the reason was not recorded';
}

/** How the page names who did what: the app of a client id, the app of a grant id. */
export interface AppNaming {
  appOfClient(clientId: string): string;
  /** Undefined when the grant is not known to the page. */
  appOfGrant(grantId: string): string | undefined;
}

/** The app an entry is about: its grantee actor, its grant's app, or the client a detail names. */
export function entryApp(e: AuditEvent, naming: AppNaming): string | undefined {
  if (e.actor.kind === 'grantee') return naming.appOfClient(e.actor.id);
  const byGrant = e.grant_id !== undefined ? naming.appOfGrant(e.grant_id) : undefined;
  if (byGrant !== undefined) return byGrant;
  // decide.ts: "consent request <id> of <client id> rejected".
  const client = / of (\S+) rejected$/.exec(e.detail ?? '')?.[1];
  return client !== undefined ? naming.appOfClient(client) : undefined;
}

/** One entry as a sentence: "You ended Fragrance Finder’s access.", "Trip Planner was refused: …". */
export function entryWords(e: AuditEvent, naming: AppNaming): string {
  const app = entryApp(e, naming);
  const who =
    e.actor.kind === 'subject' ? 'You' : e.actor.kind === 'operator' ? 'The service' : (app ?? 'An app');
  const what = ACTION_WORDS[e.action].replace('{app}', app ?? 'an app');
  if (e.action === 'revoke' && e.actor.kind === 'grantee') {
    return e.outcome === 'denied'
      ? `${who}’s access was ended: ${refusalWords(e)}.`
      : `${who} gave up its access.`;
  }
  if (e.outcome !== 'denied') return `${who} ${what}.`;
  if (e.action === 'refresh_reuse') return `${who}’s access was stopped to be safe: ${refusalWords(e)}.`;
  return `${who} was refused: ${refusalWords(e)}.`;
}
