import { type Claim, namespaceOfKey, qualifiedKey } from '../../model/claim.ts';
import { askingAppWords } from '../../model/client.ts';
import type { GrantRequestDraft } from '../../model/grant-request.ts';
import { allowedNarrowings, type ConsentView, type Exposure } from '../../operations/consent/preview.ts';
import {
  CROSS_DOMAIN_WORDS,
  dateWords,
  domainWords,
  keysOfNamespace,
  keyWords,
  namespaceWords,
  operationWords,
  provenanceWords,
  purposeWords,
  valueWords,
} from '../shared/describe.ts';
import { WRITEBACK_WORDS } from '../shared/writeback-words.ts';
import { type Selection, shorterDurations } from './decision.ts';
import { attr, html, type SafeHtml } from './escape.ts';
import { signOutForm } from './signin.ts';

// What one consent request asks for, in words, with the controls that narrow it: shared by the
// single-request page and by every element of a grant package's page. On a package page the
// field names carry the element's prefix (`e0.`, `e1.`, …) and the headings sit one level lower.

export interface GrantSectionsInput {
  /** The draft as the client asked for it. */
  readonly asked: GrantRequestDraft;
  /** What the boxes show: as asked on first view, the subject's choices after a preview. */
  readonly selection: Selection;
  /** The draft the exposure was computed for (as asked, or as narrowed by the preview). */
  readonly exposure: Exposure;
  readonly previewed: boolean;
  readonly now: Date;
  /** Prepended to every field name and id ('' on the single-request page). */
  readonly prefix: string;
  /** The heading level of the sections: 2 on their own, 3 inside a package element. */
  readonly level: 2 | 3;
}

/** What every consent page shows besides the request: who is signed in, the CSRF token, now. */
export interface PageContext {
  readonly csrf: string;
  readonly username: string;
  readonly providerName: string;
  readonly now: Date;
}

/** The signed-in line at the top of a consent page. */
export function accountLine(username: string, csrf: string): SafeHtml {
  return html`<div class="account muted"><span>Signed in as <strong>${username}</strong> · <a href="/app">Your preferences</a></span> ${signOutForm(csrf, 'Not you? Sign out')}</div>`;
}

/**
 * How a consent page's heading names the app: by its name when someone vouches for it, else as
 * the name it gave itself, at its host (anyone can register any name, that of a well-known app
 * included, and serve a document naming itself so from their own site).
 */
export function headingName(view: ConsentView): string {
  return view.app ? askingAppWords(view.app) : `An app that calls itself “${view.request.client_id}”`;
}

export function clientLine(view: ConsentView): SafeHtml {
  const name = view.client?.name ?? view.request.client_id;
  if (view.request.redirect_uri === undefined) {
    // A back-channel client (WIRE-NOTES §2.1): it gets the answer from the provider directly.
    const at = view.app?.host !== undefined ? html` at <span class="host">${view.app.host}</span>` : '';
    return html`<p class="client">App: <strong>${name}</strong>${at} <span class="hint">After you decide, you stay here: you will not be sent anywhere, and the app gets your answer from us directly.</span></p>`;
  }
  const host = new URL(view.request.redirect_uri).host;
  return html`<p class="client">App: <strong>${name}</strong> at <span class="host">${host}</span> ${standingWords(view, host)}</p>`;
}

/**
 * Whether anyone vouches for the app's name and address (model/client.ts#clientStanding,
 * #shownApp). Anyone may register an app under any name, or describe itself under any name on
 * its own site, so neither is shown as verified unless the operator stands behind it.
 */
function standingWords(view: ConsentView, host: string): SafeHtml {
  if (!view.redirectVerified) {
    return html`<span class="unverified">⚠ not verified</span> <span class="hint">This address is no longer registered for this app.</span>`;
  }
  if (view.standing === 'operator') {
    return html`<span class="verified">✓ verified</span> <span class="hint">The people who run this service registered this app and this address; you will be sent back there.</span>`;
  }
  if (view.standing === 'own_site' && view.app?.vouched) {
    return html`<span class="verified">✓ verified</span> <span class="hint">The app describes itself on ${host}, the site you will be sent back to, which the people who run this service registered.</span>`;
  }
  if (view.standing === 'own_site') {
    return html`<span class="unvouched">Not verified: this app named itself.</span> <span class="hint">The app describes itself on ${host}, the site you will be sent back to, but nobody has checked that the name is its own.</span>`;
  }
  return html`<span class="unvouched">Not verified: this app registered itself.</span> <span class="hint">Anyone can register an app under any name, and nobody has checked this one. Go on only if you came here from an app you trust; you will be sent back to this address.</span>`;
}

/** Purposes, areas, preferences, operations, expiry, rules and what it would see. */
export function grantSections(input: GrantSectionsInput): SafeHtml {
  const { asked, selection: sel, prefix: p } = input;
  const h = (text: string) => (input.level === 2 ? html`<h2>${text}</h2>` : html`<h3>${text}</h3>`);
  // Each group of boxes is a fieldset whose legend is the section's heading, so a screen reader
  // names the group with every box in it; the heading inside keeps the page's outline.
  const group = (title: string, items: SafeHtml[], hint: SafeHtml = html``) =>
    html`<section><fieldset class="group"><legend>${h(title)}</legend>${hint}<ul class="choices">
${items}
</ul></fieldset></section>`;
  const until = dateWords(asked.expires_at, input.now);
  const durations = [
    { value: '', words: `As asked: ${until}` },
    ...shorterDurations(asked, input.now).map((d) => ({
      value: String(d),
      words: d === 1 ? '1 day' : `${d} days`,
    })),
  ];
  return html`${group(
    'What for',
    asked.purposes.map((x) => checkbox(`${p}purpose`, x, sel.purposes.includes(x), purposeWords(x))),
  )}
${group(
  'In which areas',
  asked.allowed_domains.map((d) => checkbox(`${p}domain`, d, sel.domains.includes(d), domainWords(d))),
  html`<p class="hint">Your preferences may be used for these kinds of things:</p>`,
)}
${group(
  'Which preferences',
  asked.allowed_namespaces.map((ns) => namespaceItem(ns, asked, sel, p)),
)}
${group(
  'What it may do with them',
  asked.allowed_operations.map((op) =>
    checkbox(`${p}operation`, op, sel.operations.includes(op), operationWords(op)),
  ),
)}
<section>${h('For how long')}
<p>Until <strong>${until}</strong>${asked.access_mode === 'single_use' ? ', and for one use only' : ''}.</p>
${choice(`${p}duration`, 'Allow it until', durations, sel.duration, 'It cannot be made shorter.')}
</section>
<section>${h('Rules it must follow')}
${policyChoice(p, 'cross_domain_transfer', 'Where it may use them', asked.cross_domain_transfer, sel.cross_domain_transfer, CROSS_DOMAIN_WORDS)}
${policyChoice(p, 'writeback_policy', 'Changes to your profile', asked.writeback_policy, sel.writeback_policy, WRITEBACK_WORDS)}
<p class="hint">You can only make these stricter than what the app asked for.</p>
</section>
${exposureSection(input, h('What it would see'))}`;
}

function checkbox(name: string, value: string, checked: boolean, words: string, detail?: string): SafeHtml {
  return html`<li><label><input type="checkbox" name="${name}" value="${value}"${attr('checked', checked)}><span class="what">${words}</span></label>${detail ? html` <span class="hint">${detail}</span>` : ''}</li>`;
}

/** An area's box, with its preferences' boxes in a fieldset the area's box is the legend of. */
function namespaceItem(ns: string, asked: GrantRequestDraft, sel: Selection, prefix: string): SafeHtml {
  const words = namespaceWords(ns);
  const keys = asked.allowed_claim_keys
    ? asked.allowed_claim_keys.filter((k) => namespaceOfKey(k) === ns)
    : keysOfNamespace(ns);
  const keyItems = keys.map((k) => {
    const kw = keyWords(k);
    return html`<li><label><input type="checkbox" name="${prefix}key" value="${k}"${attr('checked', sel.keys.includes(k))}>${kw.name}</label>${kw.description ? html` <span class="hint">— ${kw.description}</span>` : ''}</li>`;
  });
  const note = asked.allowed_claim_keys
    ? html``
    : html`<p class="hint">Leaving every item ticked also shares ${words.title.toLowerCase()} added later.</p>`;
  return html`<li><fieldset class="keys"><legend><label><input type="checkbox" name="${prefix}namespace" value="${ns}"${attr('checked', sel.namespaces.includes(ns))}><span class="what">${words.title}</span></label></legend>${words.description ? html`<p class="hint">${words.description}</p>` : ''}
<ul class="keys">${keyItems}</ul>${note}</fieldset></li>`;
}

/** A choice among the asked policy and the stricter ones, as policy/narrowing.ts allows them. */
function policyChoice(
  prefix: string,
  policy: 'cross_domain_transfer' | 'writeback_policy',
  label: string,
  asked: string,
  chosen: string,
  words: Record<string, string>,
): SafeHtml {
  const options = allowedNarrowings(policy, asked).map((v) => ({
    value: v,
    words: v === asked ? `${(words[v] ?? v).replace(/\.$/, '')} (as asked)` : (words[v] ?? v),
  }));
  return choice(`${prefix}${policy}`, label, options, chosen, 'Nothing is stricter than this.');
}

/**
 * A select, or, when there is only one option, that option as plain text: a select that cannot
 * change reads as a choice the person has not made. A hidden input still carries its value.
 */
function choice(
  name: string,
  label: string,
  options: readonly { value: string; words: string }[],
  chosen: string,
  onlyOne: string,
): SafeHtml {
  const [only] = options;
  if (options.length === 1 && only) {
    return html`<div class="field fixed"><span class="label">${label}</span>
<p>${only.words} <span class="hint">${onlyOne}</span></p>
<input type="hidden" name="${name}" value="${only.value}"></div>`;
  }
  return html`<div class="field"><label for="${name}">${label}</label>
<select id="${name}" name="${name}">
${options.map((o) => html`<option value="${o.value}"${attr('selected', o.value === chosen)}>${o.words}</option>`)}
</select></div>`;
}

function exposureSection(input: GrantSectionsInput, heading: SafeHtml): SafeHtml {
  const { visible, hidden } = input.exposure;
  const rows = visible.map((c) => claimRow(c));
  const scope = input.previewed ? 'with your choices above' : 'if you allow the request as asked';
  return html`<section>${heading}
<p class="hint">Computed from your profile ${scope}. <span class="badge stated">you said this</span> marks what you told us yourself; <span class="badge guess">inferred</span> and the other dashed marks are guesses or observations, not your words.</p>
${
  visible.length === 0
    ? html`<p>None of your preferences would be visible.</p>`
    : html`<table class="claims"><thead><tr><th>Preference</th><th>Value</th><th>Where it came from</th></tr></thead><tbody>${rows}</tbody></table>`
}
${hiddenWords(hidden)}
</section>`;
}

/** How many preferences the app would not see; nothing is said when it would see all of them. */
function hiddenWords(hidden: number): SafeHtml {
  if (hidden === 0) return html`<p class="hint">It would see every preference you have.</p>`;
  return html`<p class="hint">${hidden === 1 ? 'Your 1 other preference stays hidden from it.' : `Your ${hidden} other preferences stay hidden from it.`}</p>`;
}

function claimRow(c: Claim): SafeHtml {
  const kw = keyWords(qualifiedKey(c));
  const stated = c.source.kind === 'user_stated';
  const badge = stated
    ? html`<span class="badge stated" data-provenance="user_stated">you said this</span>`
    : html`<span class="badge guess" data-provenance="${c.source.kind}">${provenanceWords(c.source.kind)}</span>`;
  return html`<tr data-key="${qualifiedKey(c)}"><td><strong>${kw.name}</strong> <span class="hint area">${namespaceWords(c.namespace).title}</span></td><td>${valueWords(c.value, qualifiedKey(c), c.units)}</td><td>${badge}</td></tr>`;
}
