import type { GrantRequestRecord } from '../../model/grant-request.ts';
import type { ConsentView, Exposure } from '../../operations/consent/preview.ts';
import { type ConfirmStep, confirmBlock } from './confirm-block.ts';
import type { Selection } from './decision.ts';
import { attr, html, type SafeHtml } from './escape.ts';
import { accountLine, clientLine, grantSections, headingName, type PageContext } from './grant-sections.ts';
import { errorBox, page } from './layout.ts';

// A grant package (WIRE-NOTES §4) on one page: one section per element, each showing what the
// single-request page shows, with its own narrowing controls and its own allow / don't allow
// choice. Field names carry the element's prefix (`e<index>.`), so one form decides them all.

/** One element of the package as the page shows it. */
export interface PackageElement {
  readonly request: GrantRequestRecord;
  readonly selection: Selection;
  /** 'approve', 'reject', or undefined when a posted form named neither. */
  readonly choice: string | undefined;
  /** Computed for the draft as asked, or as narrowed by a preview. */
  readonly exposure: Exposure;
  readonly previewed: boolean;
}

export interface PackagePageInput extends PageContext {
  readonly view: ConsentView;
  readonly elements: readonly PackageElement[];
  readonly previewed: boolean;
  readonly error?: string | undefined;
  /** The "confirm it is you" step, after an approval refused for want of a fresh sign-in. */
  readonly confirm?: ConfirmStep | undefined;
}

/** The prefix of an element's form fields. */
export function elementPrefix(request: GrantRequestRecord): string {
  return `e${request.package?.index ?? 0}.`;
}

/** How the page names an element in headings and messages: "Grant 2 of 3". */
export function elementTitle(request: GrantRequestRecord, count: number): string {
  return `Grant ${(request.package?.index ?? 0) + 1} of ${count}`;
}

export function packagePage(input: PackagePageInput): SafeHtml {
  const { view, elements } = input;
  const clientName = headingName(view);
  const action = `/consent/${encodeURIComponent(view.request.grant_request_id)}/decision`;
  const count = elements.length;
  return page(
    `${clientName} asks for ${count} grants`,
    html`${accountLine(input.username, input.csrf)}
<section class="card">
<h1>${clientName} asks for ${count} separate grants; decide each one</h1>
${clientLine(view)}
<p class="hint">Each grant below is separate: you can allow some and not others, and untick anything you do not want to share in the ones you allow. Nothing is shared until you confirm, and nothing is ever combined across grants.</p>
</section>
${errorBox(input.error)}
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${input.csrf}">
${elements.map((e) => elementSection(e, count, input.now))}
${confirmBlock(input.confirm)}
<div class="actions">
<button type="submit" name="decision" value="decide" class="primary">Confirm ${input.previewed ? 'my choices' : 'these choices'}</button>
<button type="submit" name="decision" value="preview">Update what they would see</button>
</div>
</form>`,
    input.providerName,
  );
}

function elementSection(e: PackageElement, count: number, now: Date): SafeHtml {
  const p = elementPrefix(e.request);
  const detailId = e.request.package?.detail_id ?? '';
  return html`<section class="element" id="${p}grant" data-detail-id="${detailId}">
<h2>${elementTitle(e.request, count)} <span class="host" title="The app's name for this grant">${detailId}</span></h2>
<input type="hidden" name="${p}request" value="${e.request.grant_request_id}">
${grantSections({ asked: e.request.draft, selection: e.selection, exposure: e.exposure, previewed: e.previewed, now, prefix: p, level: 3 })}
<fieldset class="choice"><legend>Your decision on ${elementTitle(e.request, count).toLowerCase()}</legend>
<label><input type="radio" name="${p}choice" value="approve"${attr('checked', e.choice === 'approve')}><span class="what">Allow this grant</span></label>
<label><input type="radio" name="${p}choice" value="reject"${attr('checked', e.choice === 'reject')}><span class="what">Don't allow</span></label>
</fieldset>
</section>`;
}
