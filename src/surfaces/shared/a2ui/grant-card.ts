import type { ConsentGrant } from '../../../model/consent-grant.ts';
import { domainWords, namespaceWords, purposeWords } from '../describe.ts';
import { writePowerWords } from '../writeback-words.ts';
import { button, card, column, text } from './components.ts';
import { objectContents } from './data-model.ts';
import { idsFor, surfaceIdFor } from './ids.ts';
import type { Component, SurfaceParts } from './messages.ts';
import { dayWords, expiryWords, listWords, relativeWords } from './words.ts';

// GrantCard (bindings/a2ui.md): who has access, what it covers (purposes, areas of life, kinds of
// preferences, how many single preferences), until when, relative to now ("expires in 23 days"),
// and revoke. The data model is the published grant (consent-grant.schema.json), at `/grant`.
//
// Card -> Column [grantee, grantee-id, purposes, domains, namespaces, keys, writeback, expiry, given,
// used?, revoke?]

export interface GrantCardInput {
  readonly grant: ConsentGrant;
  /** The app's registered name; without one, the card says "An app" and shows its id. */
  readonly clientName?: string;
  /**
   * When the app last used the grant (operations/grants/grant-usage.ts): null for never, absent
   * when not known (the card then says nothing of it).
   */
  readonly lastUsedAt?: string | null;
}

export function grantCard(input: GrantCardInput, now: Date): SurfaceParts {
  const { grant } = input;
  const surfaceId = surfaceIdFor('grant', grant.grant_id);
  const id = idsFor(surfaceId);
  const lines: Component[] = [
    text(id('grantee'), input.clientName ?? 'An app', 'h3'),
    text(id('grantee-id'), `Registered as “${grant.grantee_id}”`, 'caption'),
    text(id('purposes'), `What for: ${listWords(grant.purposes.map(purposeWords))}`),
    text(id('domains'), `In: ${listWords(grant.allowed_domains.map(domainWords))}`),
    text(
      id('namespaces'),
      `Sees: ${listWords(grant.allowed_namespaces.map((n) => namespaceWords(n).title))}`,
    ),
    text(id('keys'), keysWords(grant.allowed_claim_keys), 'caption'),
    text(id('writeback'), writePowerWords(grant.writeback_policy, grant.allowed_operations)),
    text(id('expiry'), expiry(grant, now)),
    text(id('given'), `Given on ${dayWords(grant.granted_at)}`, 'caption'),
    ...(input.lastUsedAt === undefined
      ? []
      : [text(id('used'), usedWords(input.lastUsedAt, now), 'caption')]),
  ];
  const parts: Component[] = [...lines];
  const body = lines.map((c) => c.id);
  if (grant.status === 'active' || grant.status === 'pending') {
    // Revoke is offered while the grant can still be used; the action names the grant.
    const context = [{ key: 'grant_id', value: { literalString: grant.grant_id } }];
    parts.push(
      text(id('revoke-label'), 'Revoke access'),
      button(id('revoke'), id('revoke-label'), { name: 'revoke', context }),
    );
    body.push(id('revoke'));
  }
  parts.unshift(card(id('card'), id('body')), column(id('body'), body));
  return {
    surfaceId,
    root: id('card'),
    components: parts,
    data: [{ path: '/grant', contents: objectContents(grant) }],
  };
}

function usedWords(at: string | null, now: Date): string {
  if (at === null) return 'Not used yet';
  return `Last used ${relativeWords(at, now)} (${dayWords(at)})`;
}

/** allowed_claim_keys absent means every preference of the listed kinds (SPEC §6.1). */
function keysWords(keys: readonly string[] | undefined): string {
  if (keys === undefined) return 'Every preference of those kinds';
  if (keys.length === 1) return 'Only 1 preference of those kinds';
  return `Only ${keys.length} preferences of those kinds`;
}

function expiry(grant: ConsentGrant, now: Date): string {
  if (grant.status === 'revoked') {
    return grant.revoked_at !== undefined
      ? `You revoked it on ${dayWords(grant.revoked_at)}`
      : 'You revoked it';
  }
  if (grant.expires_at === undefined) return 'Does not expire: it lasts until you revoke it';
  return expiryWords(grant.expires_at, now);
}
