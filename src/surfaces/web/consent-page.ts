import type { ConsentView, Exposure } from '../../operations/consent/preview.ts';
import { type ConfirmStep, confirmBlock } from './confirm-block.ts';
import type { Selection } from './decision.ts';
import { html, type SafeHtml } from './escape.ts';
import { accountLine, clientLine, grantSections, headingName, type PageContext } from './grant-sections.ts';
import { errorBox, page } from './layout.ts';

export interface ConsentPageInput extends PageContext {
  readonly view: ConsentView;
  /** What the boxes show: as asked on first view, the subject's choices after a preview. */
  readonly selection: Selection;
  /** The draft the exposure was computed for (as asked, or as narrowed by the preview). */
  readonly exposure: Exposure;
  readonly previewed: boolean;
  readonly error?: string | undefined;
  /** The "confirm it is you" step, after an approval refused for want of a fresh sign-in. */
  readonly confirm?: ConfirmStep | undefined;
}

export function consentPage(input: ConsentPageInput): SafeHtml {
  const { view } = input;
  const clientName = headingName(view);
  const action = `/consent/${encodeURIComponent(view.request.grant_request_id)}/decision`;
  return page(
    `${clientName} asks for your preferences`,
    html`${accountLine(input.username, input.csrf)}
<section class="card">
<h1>${clientName} wants to use your preferences</h1>
${clientLine(view)}
<p class="hint">Nothing is shared until you allow it. You can untick anything you do not want to share, or reject the request.</p>
</section>
${errorBox(input.error)}
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${input.csrf}">
${grantSections({ ...input, asked: view.request.draft, prefix: '', level: 2 })}
${confirmBlock(input.confirm)}
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Allow${input.previewed ? ' my choices' : ''}</button>
<button type="submit" name="decision" value="preview">Update what it would see</button>
<button type="submit" name="decision" value="reject" class="danger">Reject</button>
</div>
</form>`,
    input.providerName,
  );
}
