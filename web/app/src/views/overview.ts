import { type Claim, qualifiedKey } from '../../../../src/model/claim.ts';
import type { ConsentGrant } from '../../../../src/model/consent-grant.ts';
import type {
  PendingCrossDomainReview,
  PendingProposal,
} from '../../../../src/operations/inbox/inbox-state.ts';
import {
  claimCard,
  consentRequestForm,
  groupSuggestions,
  type SuggestionGroup,
  suggestionGroup,
} from '../../../../src/surfaces/shared/a2ui/index.ts';
import { domainWords, keyWords } from '../../../../src/surfaces/shared/describe.ts';
import type { SurfaceAction } from '../a2ui-renderer.ts';
import { appName, appNames } from '../app-names.ts';
import { editedClaim, editedProposal, fromPercent, toPercent } from '../claim-edits.ts';
import { confirmStep } from '../confirm-step.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { explainButton } from '../explain-button.ts';
import { type Choice, grantNarrowing } from '../narrowing.ts';
import { decideRequest } from '../requests.ts';
import type { ConsentInterrupt } from '../review-stream.ts';
import { areaTitle, dayWords, listWords, relativeWords } from '../words.ts';
import { glanceSection } from './glance.ts';
import { mixSection } from './plots.ts';
import { preferencePath } from './preference.ts';

// The first view: what waits for the person (apps asking for access, changes apps suggested),
// then everything known about them, area by area, with who can see each area right now.

export const overviewView: View = {
  path: '/app',
  title: 'Your preferences',
  label: 'Home',
  sections: (ctx) => [
    glanceSection(ctx),
    requestsSection(ctx),
    suggestionsSection(ctx),
    ...profileSections(ctx),
  ],
};

function requestsSection(ctx: AppContext): Section {
  // Only live requests: one that expired while the page was open can no longer be answered.
  const now = ctx.now().getTime();
  const requests = ctx.requests().filter((r) => r.expiresAt === undefined || Date.parse(r.expiresAt) > now);
  return {
    id: 'requests',
    key: JSON.stringify([requests, appNames(), day(ctx)]),
    build: () => {
      const section = h(
        'section',
        { id: 'requests', 'aria-labelledby': 'requests-h' },
        h('h2', { id: 'requests-h', tabindex: '-1' }, 'Apps asking to use your preferences'),
      );
      if (requests.length === 0) {
        section.append(h('p', { class: 'muted' }, 'No app is waiting for an answer.'));
        return section;
      }
      for (const r of requests) section.append(requestForm(ctx, r));
      return section;
    },
  };
}

function requestForm(ctx: AppContext, interrupt: ConsentInterrupt): HTMLElement {
  const { request } = interrupt;
  return ctx.surface(consentRequestForm(request, appName(request.client_id), ctx.now()), async (a) => {
    const choice = a.context['choice'] as Choice | undefined;
    const who = appName(request.client_id);
    try {
      if (a.name === 'approve')
        await decideRequest(ctx.csrf, request.grant_request_id, { action: 'approve' });
      else if (a.name === 'reject')
        await decideRequest(ctx.csrf, request.grant_request_id, { action: 'reject' });
      else if (a.name === 'edit') {
        const grant = grantNarrowing(request.grant_draft, choice ?? {});
        await decideRequest(
          ctx.csrf,
          request.grant_request_id,
          Object.keys(grant).length === 0 ? { action: 'approve' } : { action: 'edit', grant },
        );
      } else return;
      ctx.notify(
        a.name === 'reject'
          ? `You said no to ${who}. Nothing was shared.`
          : `${who} can now use what you allowed.`,
      );
    } catch (e) {
      ctx.notify(`Your answer to ${who} was not saved: ${(e as Error).message}`, 'error');
      if (/^Confirm it is you/.test((e as Error).message)) offerConfirmStep();
    }
    ctx.refreshRequests();
  });
}

/** Beside the refusal of an approval that needs a fresh sign-in: the way to the step (views/security.ts). */
function offerConfirmStep(): void {
  document
    .querySelector('#notices .error')
    ?.append(' ', h('a', { href: '/app/security?return_to=/app' }, 'Confirm it is you'));
}

function suggestionsSection(ctx: AppContext): Section {
  const pending = ctx.state()?.pending_reviews ?? [];
  return {
    id: 'suggestions',
    key: JSON.stringify([pending, appNames(), day(ctx)]),
    build: () => {
      const section = h(
        'section',
        { id: 'suggestions', 'aria-labelledby': 'suggestions-h' },
        h('h2', { id: 'suggestions-h', tabindex: '-1' }, 'Changes apps suggested'),
      );
      if (pending.length === 0) {
        section.append(h('p', { class: 'muted' }, 'No suggested change is waiting for you.'));
        return section;
      }
      // A suggestion shows what it would replace; several for one preference are one card
      // with what it says now shown once (issue 22 item 6). Groups come where their first
      // suggestion does.
      const proposals = pending.filter((p): p is PendingProposal => p.kind === 'writeback_proposal');
      const groups = new Map(
        groupSuggestions(proposals, ctx.state()?.claims ?? []).map((g) => [g.key, g] as const),
      );
      for (const p of pending) {
        if (p.kind === 'cross_domain_review') section.append(crossDomain(ctx, p));
        else {
          const group = groups.get(qualifiedKey(p.claim));
          groups.delete(qualifiedKey(p.claim));
          if (group) section.append(suggestions(ctx, group));
        }
      }
      return section;
    },
  };
}

function suggestions(ctx: AppContext, group: SuggestionGroup<PendingProposal>): HTMLElement {
  // One "Explain this" per card (the oldest suggestion's), not one identical button per row.
  const first = group.suggestions[0] as PendingProposal;
  return h(
    'div',
    { class: 'claim' },
    suggestionsSurface(ctx, group),
    explainButton(ctx.csrf, { proposal_id: first.proposal_id }, JSON.stringify(first)),
  );
}

function suggestionsSurface(ctx: AppContext, group: SuggestionGroup<PendingProposal>): HTMLElement {
  return ctx.surface(suggestionGroup(group, appName), (a) => {
    const p = group.suggestions.find((s) => s.proposal_id === a.context['proposal_id']);
    if (p === undefined) return;
    if (a.name === 'confirm') {
      void ctx.act(
        'confirm_updates',
        { decisions: [{ proposal_id: p.proposal_id, action: 'confirm' }] },
        'The change is now in your profile.',
      );
    } else if (a.name === 'reject') {
      void ctx.act(
        'confirm_updates',
        { decisions: [{ proposal_id: p.proposal_id, action: 'reject' }] },
        'You turned the change down. Your profile is as it was.',
      );
    } else if (a.name === 'edit') {
      const value = fromPercent(a.context['value_percent']);
      if (value === undefined) {
        ctx.notify(
          'This kind of preference cannot be changed here yet. You can accept it and change it later, or turn it down.',
          'error',
        );
        return;
      }
      void ctx.act(
        'confirm_updates',
        {
          decisions: [{ proposal_id: p.proposal_id, action: 'edit', claim: editedProposal(p.claim, value) }],
        },
        'Your changed version is now in your profile.',
      );
    }
  });
}

function crossDomain(ctx: AppContext, r: PendingCrossDomainReview): HTMLElement {
  const who = appName(r.grantee_id);
  const from = listWords(r.source_domains.map(domainWords));
  const card = h(
    'div',
    { class: 'a2-card plain-card' },
    h('h3', {}, `${who} wants to use your ${from} preferences for ${domainWords(r.target_domain)}`),
    h(
      'p',
      { class: 'a2-caption' },
      `Asked on ${dayWords(r.created_at)}. Until you allow it, they are not used there.`,
    ),
  );
  const allow = h(
    'button',
    { type: 'button', class: 'primary', id: `xd-${r.review_id}-approve` },
    'Allow it',
  );
  const refuse = h('button', { type: 'button', id: `xd-${r.review_id}-reject` }, 'Do not allow');
  allow.addEventListener(
    'click',
    () =>
      void ctx.act(
        'approve_cross_domain_review',
        { review_id: r.review_id },
        `${who} may now use them there.`,
      ),
  );
  refuse.addEventListener(
    'click',
    () =>
      void ctx.act(
        'reject_cross_domain_review',
        { review_id: r.review_id },
        `${who} will not use them there.`,
      ),
  );
  card.append(h('div', { class: 'actions' }, allow, refuse));
  return card;
}

/** One section per area of the profile, core first. */
function profileSections(ctx: AppContext): Section[] {
  const state = ctx.state();
  const claims = state?.claims ?? [];
  const grants = state?.active_grants ?? [];
  const areas = [...new Set(claims.map((c) => c.namespace))].sort((a, b) =>
    a === 'core' ? -1 : b === 'core' ? 1 : a.localeCompare(b),
  );
  const heading: Section = {
    id: 'profile',
    key: JSON.stringify([state === undefined, claims.length === 0, state?.profile_id ?? null]),
    build: () => {
      const el = h(
        'section',
        { id: 'profile', class: 'intro', 'aria-labelledby': 'profile-h' },
        h('h2', { id: 'profile-h', tabindex: '-1' }, 'What is known about you'),
      );
      if (state === undefined) el.append(h('p', { class: 'muted' }, 'Loading…'));
      else if (claims.length === 0)
        el.append(
          h(
            'p',
            {},
            'Nothing is stored about you. When you or an app you allow add a preference, it shows here.',
          ),
        );
      else
        el.append(
          h(
            'p',
            { class: 'muted' },
            'Each preference says whether you said it or it was worked out, how sure it is, and where it came from. Tell us when something is wrong.',
          ),
        );
      return el;
    },
  };
  const sections: Section[] = [heading, mixSection(claims)];
  for (const area of areas) {
    const inArea = claims.filter((c) => c.namespace === area);
    const seers = grants.filter((g) => seesArea(g, area));
    sections.push({
      id: `area-${area}`,
      key: JSON.stringify([inArea, seers, appNames(), day(ctx)]),
      build: () => areaSection(ctx, area, inArea, seers),
    });
  }
  return sections;
}

function seesArea(grant: ConsentGrant, area: string): boolean {
  return grant.allowed_namespaces.includes(area);
}

function areaSection(
  ctx: AppContext,
  area: string,
  claims: readonly Claim[],
  seers: readonly ConsentGrant[],
): HTMLElement {
  const id = `area-${area}`;
  const el = h(
    'section',
    { id, class: 'area', 'aria-labelledby': `${id}-h` },
    h('h2', { id: `${id}-h`, tabindex: '-1' }, areaTitle(area)),
  );
  el.append(
    h(
      'p',
      { class: 'who-sees' },
      h('strong', {}, 'Who can see this now: '),
      seers.length === 0 ? 'only you.' : `${listWords(seers.map((g) => seerWords(ctx, g, area)))}.`,
    ),
  );
  // Folded on a phone, where every area open made the page ten thousand pixels tall: the summary
  // line says what is inside; open everywhere else.
  const stated = claims.filter((c) => c.source.kind === 'user_stated').length;
  const list = h(
    'details',
    { class: 'area-claims', open: !PHONE.matches },
    h(
      'summary',
      {},
      `${claims.length === 1 ? '1 preference' : `${claims.length} preferences`}: ${stated} said by you, ${claims.length - stated} worked out or brought in`,
    ),
  );
  for (const claim of claims) list.append(claimSurface(ctx, claim));
  el.append(list);
  return el;
}

/** The width under which the page is laid out for a phone (style.css uses the same). */
const PHONE = window.matchMedia('(max-width: 30rem)');

function seerWords(ctx: AppContext, g: ConsentGrant, area: string): string {
  const keys = g.allowed_claim_keys?.filter((k) =>
    k.includes('.') ? k.startsWith(`${area}.`) : area === 'core',
  );
  const some =
    keys !== undefined
      ? ` (${keys.length === 1 ? 'one preference' : `${keys.length} preferences`} of these)`
      : '';
  const until = g.expires_at
    ? `, until ${dayWords(g.expires_at)} (${relativeWords(g.expires_at, ctx.now())})`
    : '';
  return `${appName(g.grantee_id)}${some}${until}`;
}

function claimSurface(ctx: AppContext, claim: Claim): HTMLElement {
  const wrap = h('div', { class: 'claim' });
  const onAction = (a: SurfaceAction) => {
    if (a.name === 'confirm') {
      void ctx.act(
        'confirm_updates',
        { decisions: [{ claim_id: claim.claim_id, action: 'confirm' }] },
        'Thank you: marked as right.',
      );
    } else if (a.name === 'edit') {
      const value = fromPercent(a.context['value_percent']);
      // Other kinds of value are changed on the preference's own page (views/preference.ts).
      if (value === undefined) return ctx.go(preferencePath(qualifiedKey(claim)));
      // The slider left where it was is a confirmation, not a new statement: where the value
      // came from stays as it is (issue 22 item 7).
      if (value === fromPercent(toPercent(claim.value))) {
        void ctx.act(
          'confirm_updates',
          { decisions: [{ claim_id: claim.claim_id, action: 'confirm' }] },
          'Confirmed as it is. You did not change it, so where it came from stays the same.',
        );
        return;
      }
      void ctx.act(
        'propose_updates',
        { claims: [editedClaim(claim, value)] },
        'Changed. It now says what you set.',
      );
    } else if (a.name === 'reject') {
      const card = wrap.firstElementChild;
      const step = confirmStep({
        question: 'Remove this preference from your profile? Apps will no longer see it.',
        yes: 'Remove it',
        no: 'Keep it',
        onYes: async () => {
          await ctx.act('delete_claim', { claim_id: claim.claim_id }, 'Removed from your profile.');
        },
        onNo: () => {
          step.remove();
          (card?.querySelector('[data-action="reject"]') as HTMLElement | null)?.focus();
        },
      });
      wrap.append(step);
    }
  };
  wrap.append(
    ctx.surface(claimCard(claim, ctx.now()), onAction),
    explainButton(ctx.csrf, { claim_id: claim.claim_id }, JSON.stringify(claim)),
    h(
      'p',
      { class: 'claim-link' },
      h(
        'a',
        { href: preferencePath(qualifiedKey(claim)) },
        `History of ${keyWords(qualifiedKey(claim)).name.toLowerCase()}`,
      ),
    ),
  );
  return wrap;
}

/** Relative times change with the day: a new day draws the cards again. */
function day(ctx: AppContext): string {
  return ctx.now().toISOString().slice(0, 10);
}
