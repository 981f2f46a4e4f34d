import { randomUUID } from 'node:crypto';
import {
  type BaseEvent,
  EventType,
  type TextMessageContentEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
} from '@ag-ui/core';
import { type Claim, qualifiedKey } from '../../model/claim.ts';
import { appWords, type ShownApp } from '../../model/client.ts';
import type { ConsentGrant } from '../../model/consent-grant.ts';
import { withoutBidiControls } from '../../model/shown-text.ts';
import { grantsShowing, type InboxState, type PendingProposal } from '../../operations/inbox/inbox-state.ts';
import {
  confidenceWords,
  dayWords,
  expiryWords,
  listWords,
  relativeWords,
  sourceWords,
} from '../shared/a2ui/words.ts';
import {
  domainWords,
  keyWords,
  namespaceWords,
  operationWords,
  purposeWords,
  valueWords,
} from '../shared/describe.ts';
import { queuedBecauseWords, writePowerWords } from '../shared/writeback-words.ts';
import type { ExplainTarget } from './input.ts';

// Explanations in words (WIRE-NOTES §7: TEXT_MESSAGE_START/CONTENT/END "for explanations"): a
// run's `forwardedProps.explain` names claims, proposals or grants of the person's state, and the
// run answers each with an assistant message saying what it is, where it came from and who can
// see it. Made from the state the run just sent, so it never says more than the person's view.
// Apps are named as every page names them (model/client.ts#appWords), never by their client id.

/** How the explanations name apps: client id → the app as shown (operations/accounts/shown-apps.ts). */
export type AppNames = ReadonlyMap<string, ShownApp>;

/** The client ids a state's explanations may name (what to look up for `AppNames`). */
export function appIdsOf(state: InboxState): string[] {
  return [
    ...state.active_grants.map((g) => g.grantee_id),
    ...state.pending_reviews.flatMap((r) => (r.kind === 'writeback_proposal' ? [r.client_id] : [])),
  ];
}

/** The sentences explaining one target, from the state the run holds now. */
export function explanation(state: InboxState, target: ExplainTarget, now: Date, apps: AppNames): string[] {
  const named = (clientId: string) => nameOf(apps, clientId);
  if ('claim_id' in target) {
    const claim = state.claims.find((c) => c.claim_id === target.claim_id);
    return claim
      ? claimSentences(claim, state, now, named)
      : ['That preference is no longer in your profile.'];
  }
  if ('proposal_id' in target) {
    const proposal = state.pending_reviews.find(
      (r): r is PendingProposal => r.kind === 'writeback_proposal' && r.proposal_id === target.proposal_id,
    );
    return proposal
      ? proposalSentences(proposal, now, named)
      : ['That suggestion is no longer waiting for you.'];
  }
  const grant = state.active_grants.find((g) => g.grant_id === target.grant_id);
  return grant ? grantSentences(grant, now, named) : ['That access has ended, or it was never given.'];
}

/** An app by its shown name; one no longer known is "an app", never its raw client id. */
function nameOf(apps: AppNames, clientId: string): string {
  const app = apps.get(clientId);
  return app ? appWords(app) : 'An app that is no longer registered';
}

function claimSentences(
  claim: Claim,
  state: InboxState,
  now: Date,
  named: (clientId: string) => string,
): string[] {
  const key = qualifiedKey(claim);
  const words = keyWords(key);
  const out = [`${words.name}: ${valueWords(claim.value, key)}.`];
  if (words.description !== undefined) out.push(sentence(words.description));
  out.push(
    claim.source.kind === 'user_stated'
      ? 'You said this yourself.'
      : `${sourceWords(claim.source.kind)}. How sure it is: ${confidenceWords(claim.confidence)}.`,
  );
  const lifecycle = claim.lifecycle;
  if (lifecycle?.last_confirmed_at !== undefined) {
    out.push(`You last confirmed it ${relativeWords(lifecycle.last_confirmed_at, now)}.`);
  }
  if (lifecycle?.expires_at !== undefined) out.push(`${expiryWords(lifecycle.expires_at, now)}.`);
  const seeing = grantsShowing(state, claim);
  out.push(
    seeing.length === 0
      ? 'No app can see it right now.'
      : `Who can see it right now: ${listWords([...new Set(seeing.map((g) => named(g.grantee_id)))])}.`,
  );
  return out;
}

function proposalSentences(
  proposal: PendingProposal,
  now: Date,
  named: (clientId: string) => string,
): string[] {
  const key = qualifiedKey(proposal.claim);
  // The stored reason is the provider's own (policy/writeback.ts), said as the person's rule.
  const because = proposal.reason !== undefined ? queuedBecauseWords(proposal.reason) : undefined;
  return [
    `${named(proposal.client_id)} suggested ${relativeWords(proposal.created_at, now)} (${dayWords(proposal.created_at)}) that ${keyWords(key).name.toLowerCase()} is ${valueWords(proposal.claim.value, key)}.`,
    ...(because !== undefined ? [`It waits for you because of your own rule: ${lowerFirst(because)}`] : []),
    'Nothing changes in your profile until you accept it; you can also change it first, or turn it down.',
  ];
}

function lowerFirst(words: string): string {
  return words.charAt(0).toLowerCase() + words.slice(1);
}

function grantSentences(grant: ConsentGrant, now: Date, named: (clientId: string) => string): string[] {
  const areas = listWords(grant.allowed_namespaces.map((n) => namespaceWords(n).title.toLowerCase()));
  const keys =
    grant.allowed_claim_keys === undefined
      ? ''
      : ` (only ${grant.allowed_claim_keys.length === 1 ? '1 preference' : `${grant.allowed_claim_keys.length} preferences`})`;
  return [
    `${named(grant.grantee_id)} can see your ${areas}${keys} in ${listWords(grant.allowed_domains.map(domainWords))}.`,
    `You allowed it to ${listWords(grant.purposes.map(purposeWords).map((p) => p.toLowerCase()))}.`,
    `It may ${listWords(grant.allowed_operations.map((o) => GRANT_CAN[o] ?? operationWords(o).toLowerCase()))}.`,
    writePowerWords(grant.writeback_policy, grant.allowed_operations),
    grant.expires_at === undefined
      ? 'It lasts until you revoke it.'
      : `${expiryWords(grant.expires_at, now)}; you can revoke it before then.`,
  ];
}

/** What a grant lets its app do, said of the grant (the consent page's words say "shown below"). */
const GRANT_CAN: Record<string, string> = {
  read: 'read those preferences',
  query: 'ask questions about them',
  // What becomes of its changes is writePowerWords' to say, from the write-back rules.
  propose_update: 'send changes to your profile',
  confirm_update: 'confirm changes to your profile',
  export: 'export a copy of them',
};

function sentence(words: string): string {
  return /[.!?]$/.test(words) ? words : `${words}.`;
}

/** One assistant message: START, one CONTENT per sentence, END. */
export function textMessageEvents(sentences: readonly string[], at: Date): BaseEvent[] {
  const messageId = `msg_${randomUUID()}`;
  const timestamp = at.getTime();
  const start: TextMessageStartEvent = {
    type: EventType.TEXT_MESSAGE_START,
    messageId,
    role: 'assistant',
    timestamp,
  };
  const content: TextMessageContentEvent[] = sentences.map((s, i) => ({
    type: EventType.TEXT_MESSAGE_CONTENT,
    messageId,
    // The sentences quote outside text (values, names): no bidi controls (model/shown-text.ts).
    delta: withoutBidiControls(i === 0 ? s : ` ${s}`),
    timestamp,
  }));
  const end: TextMessageEndEvent = { type: EventType.TEXT_MESSAGE_END, messageId, timestamp };
  return [start, ...content, end];
}
