import type { AuditEvent } from '../../../src/model/audit-event.ts';
import { dayWords, listWords, relativeWords } from '../../../src/surfaces/shared/a2ui/words.ts';
import { keyWords, namespaceWords } from '../../../src/surfaces/shared/describe.ts';
import { appName } from './app-names.ts';

// Words the page adds to the shared ones (surfaces/shared/describe.ts, a2ui/words.ts).

export { dayWords, listWords, relativeWords };

/** "Fragrance preferences" for a namespace; core claims are about the person in general. */
export function areaTitle(namespace: string): string {
  return namespaceWords(namespace).title;
}

/** "12 March 2027, 14:05" in the person's own time zone. */
export function timeWords(iso: string): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}

/** What each audit action means, said of its actor ("Fragrance Finder read your preferences"). */
export const AUDIT_WORDS: Record<AuditEvent['action'], string> = {
  read: 'read your preferences',
  query: 'looked up some of your preferences',
  effective: 'read your preferences for a situation',
  summary: 'read a summary of your preferences',
  export: 'downloaded all your preferences',
  import: 'brought in preferences from a file',
  list_grants: 'looked at who can see your preferences',
  revoke: 'ended an app’s access',
  grant_created: 'gave an app access',
  audit_read: 'looked at this list',
  denied: 'was refused',
  consent_rejected: 'said no to an app',
  token_issued: 'received its key to your preferences',
  token_refreshed: 'renewed its key',
  refresh_reuse: 'used an old key again, so its access was stopped to be safe',
  derived_view: 'worked something out from some of your preferences',
  proposal_created: 'suggested a change to your profile',
  proposal_applied: 'changed your profile',
  proposal_confirmed: 'accepted a suggested change',
  proposal_rejected: 'turned down a suggested change',
  claim_confirmed: 'confirmed a preference',
  claim_deleted: 'removed a preference',
  profile_deleted: 'deleted the whole profile',
  sensitive_keys_changed: 'changed which preferences count as sensitive',
  cross_domain_review_requested: 'asked to use preferences from one area in another',
  cross_domain_approved: 'allowed preferences to be used in another area',
  cross_domain_rejected: 'refused to let preferences be used in another area',
};

/** Who did it: "You", the app's name, or the service. */
export function actorWords(actor: AuditEvent['actor']): string {
  if (actor.kind === 'subject') return 'You';
  if (actor.kind === 'operator') return 'The service';
  return appName(actor.id);
}

/** "Trying new things and Oud" for the keys an entry names; "" when none. */
export function keysWords(keys: readonly string[]): string {
  if (keys.length === 0) return '';
  const names = keys.slice(0, 6).map((k) => keyWords(k).name);
  return keys.length > 6 ? `${names.join(', ')} and ${keys.length - 6} more` : listWords(names);
}
