import type { Claim } from '../../model/claim.ts';
import { qualifiedKey } from '../../model/claim.ts';
import type { GrantRequestDraft } from '../../store/store.ts';
import type { ConsentView, Exposure } from './consent-view.ts';
import { type Selection, shorterDurations } from './decision.ts';
import {
  CROSS_DOMAIN_WORDS,
  dateWords,
  domainWords,
  keyWords,
  namespaceWords,
  operationWords,
  provenanceWords,
  purposeWords,
  valueWords,
  WRITEBACK_WORDS,
} from './describe.ts';
import { attr, html, type SafeHtml } from './escape.ts';
import { errorBox, page } from './layout.ts';
import { signOutForm } from './signin.ts';

export interface ConsentPageInput {
  readonly view: ConsentView;
  /** What the boxes show: as asked on first view, the subject's choices after a preview. */
  readonly selection: Selection;
  /** The draft the exposure was computed for (as asked, or as narrowed by the preview). */
  readonly exposure: Exposure;
  readonly previewed: boolean;
  readonly csrf: string;
  readonly username: string;
  readonly providerName: string;
  readonly now: Date;
  readonly error?: string | undefined;
}

export function consentPage(input: ConsentPageInput): SafeHtml {
  const { view, selection: sel } = input;
  const asked = view.request.draft;
  const clientName = view.client?.name ?? view.request.client_id;
  const action = `/consent/${encodeURIComponent(view.request.grant_request_id)}/decision`;
  return page(
    `${clientName} asks for your preferences`,
    html`<div class="account muted"><span>Signed in as <strong>${input.username}</strong></span> ${signOutForm(input.csrf, 'Not you? Sign out')}</div>
<section class="card">
<h1>${clientName} wants to use your preferences</h1>
${clientLine(view)}
<p class="hint">Nothing is shared until you allow it. You can untick anything you do not want to share, or reject the request.</p>
</section>
${errorBox(input.error)}
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${input.csrf}">
<section><h2>What for</h2><ul class="choices">
${asked.purposes.map((p) => checkbox('purpose', p, sel.purposes.includes(p), purposeWords(p)))}
</ul></section>
<section><h2>In which areas</h2><p class="hint">Your preferences may be used for these kinds of things:</p><ul class="choices">
${asked.allowed_domains.map((d) => checkbox('domain', d, sel.domains.includes(d), domainWords(d)))}
</ul></section>
<section><h2>Which preferences</h2><ul class="choices">
${asked.allowed_namespaces.map((ns) => namespaceItem(ns, asked, sel))}
</ul></section>
<section><h2>What it may do with them</h2><ul class="choices">
${asked.allowed_operations.map((op) => checkbox('operation', op, sel.operations.includes(op), operationWords(op)))}
</ul></section>
<section><h2>For how long</h2>
<p>Until <strong>${dateWords(asked.expires_at, input.now)}</strong>${asked.access_mode === 'single_use' ? ', and for one use only' : ''}.</p>
<div class="field"><label for="duration">Allow it until</label>
<select id="duration" name="duration">
<option value=""${attr('selected', sel.duration === '')}>As asked: ${dateWords(asked.expires_at, input.now)}</option>
${shorterDurations(asked, input.now).map((d) => html`<option value="${d}"${attr('selected', sel.duration === String(d))}>${d === 1 ? '1 day' : `${d} days`}</option>`)}
</select></div>
</section>
<section><h2>Rules it must follow</h2>
${policySelect('cross_domain_transfer', 'Where it may use them', asked.cross_domain_transfer, sel.cross_domain_transfer, CROSS_DOMAIN_WORDS)}
${policySelect('writeback_policy', 'Changes to your profile', asked.writeback_policy, sel.writeback_policy, WRITEBACK_WORDS)}
<p class="hint">You can only make these stricter than what the app asked for.</p>
</section>
${exposureSection(input)}
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Allow${input.previewed ? ' my choices' : ''}</button>
<button type="submit" name="decision" value="preview">Update what it would see</button>
<button type="submit" name="decision" value="reject" class="danger">Reject</button>
</div>
</form>`,
    input.providerName,
  );
}

function clientLine(view: ConsentView): SafeHtml {
  const host = new URL(view.request.redirect_uri).host;
  const verified = view.redirectVerified
    ? html`<span class="verified">✓ verified</span> <span class="hint">This is the address registered for this app; you will be sent back there.</span>`
    : html`<span class="unverified">⚠ not verified</span> <span class="hint">This address is no longer registered for this app.</span>`;
  return html`<p class="client">App: <strong>${view.client?.name ?? view.request.client_id}</strong> at <span class="host">${host}</span> ${verified}</p>`;
}

function checkbox(name: string, value: string, checked: boolean, words: string, detail?: string): SafeHtml {
  return html`<li><label><input type="checkbox" name="${name}" value="${value}"${attr('checked', checked)}><span class="what">${words}</span></label>${detail ? html` <span class="hint">${detail}</span>` : ''}</li>`;
}

function namespaceItem(ns: string, asked: GrantRequestDraft, sel: Selection): SafeHtml {
  const words = namespaceWords(ns);
  const keys = asked.allowed_claim_keys
    ? asked.allowed_claim_keys.filter((k) => keyNamespace(k) === ns)
    : sel.allKeysOf(ns);
  const keyItems = keys.map((k) => {
    const kw = keyWords(k);
    return html`<li><label><input type="checkbox" name="key" value="${k}"${attr('checked', sel.keys.includes(k))}>${kw.name}</label>${kw.description ? html` <span class="hint">— ${kw.description}</span>` : ''}</li>`;
  });
  const note = asked.allowed_claim_keys
    ? html``
    : html`<p class="hint">Leaving every item ticked also shares ${words.title.toLowerCase()} added later.</p>`;
  return html`<li><label><input type="checkbox" name="namespace" value="${ns}"${attr('checked', sel.namespaces.includes(ns))}><span class="what">${words.title}</span></label>${words.description ? html` <span class="hint">${words.description}</span>` : ''}
<ul class="keys">${keyItems}</ul>${note}</li>`;
}

function keyNamespace(key: string): string {
  const dot = key.indexOf('.');
  return dot < 0 ? 'core' : key.slice(0, dot);
}

function policySelect(
  name: string,
  label: string,
  asked: string,
  chosen: string,
  words: Record<string, string>,
): SafeHtml {
  const order = Object.keys(words);
  const allowed = order.slice(0, Math.max(0, order.indexOf(asked)) + 1).reverse();
  return html`<div class="field"><label for="${name}">${label}</label>
<select id="${name}" name="${name}">
${allowed.map((v) => html`<option value="${v}"${attr('selected', v === chosen)}>${words[v] ?? v}${v === asked ? ' (as asked)' : ''}</option>`)}
</select></div>`;
}

function exposureSection(input: ConsentPageInput): SafeHtml {
  const { visible, hidden } = input.exposure;
  const rows = visible.map((c) => claimRow(c));
  const scope = input.previewed ? 'with your choices above' : 'if you allow the request as asked';
  return html`<section><h2>What it would see</h2>
<p class="hint">Computed from your profile ${scope}. <span class="badge stated">you said this</span> marks what you told us yourself; <span class="badge guess">inferred</span> and the other dashed marks are guesses or observations, not your words.</p>
${
  visible.length === 0
    ? html`<p>None of your preferences would be visible.</p>`
    : html`<table class="claims"><thead><tr><th>Preference</th><th>Value</th><th>Where it came from</th></tr></thead><tbody>${rows}</tbody></table>`
}
<p class="hint">${hidden === 1 ? '1 other preference stays hidden.' : `${hidden} other preferences stay hidden.`}</p>
</section>`;
}

function claimRow(c: Claim): SafeHtml {
  const kw = keyWords(qualifiedKey(c));
  const stated = c.source.kind === 'user_stated';
  const badge = stated
    ? html`<span class="badge stated" data-provenance="user_stated">you said this</span>`
    : html`<span class="badge guess" data-provenance="${c.source.kind}">${provenanceWords(c.source.kind)}</span>`;
  return html`<tr data-key="${qualifiedKey(c)}"><td>${namespaceWords(c.namespace).title}: <strong>${kw.name}</strong></td><td>${valueWords(c.value, c.units)}</td><td>${badge}</td></tr>`;
}
