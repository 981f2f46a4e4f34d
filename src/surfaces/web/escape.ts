import { html as honoHtml, raw } from 'hono/html';
import { withoutBidiControls } from '../../model/shown-text.ts';

// The pages are written with hono's `html` tag (hono/html): literal parts are trusted markup,
// every `${value}` is escaped (& < > " ' as entities), arrays are flattened, what `html` or `raw`
// made is kept as it is, and null, undefined and false render nothing. There is no other way to
// put text into a page, so user data can never be concatenated in raw. Ours on top: drawn text
// never carries bidi controls (model/shown-text.ts: they redraw outside text), and what may be
// interpolated is typed (no object that would render as "[object Object]", no `true`).

/** Markup made by `html` (a string hono knows is escaped). */
export type SafeHtml = ReturnType<typeof raw>;

type Interpolated = SafeHtml | string | number | false | null | undefined | readonly Interpolated[];

// A SafeHtml is a String object at run time (typeof 'object'): only plain text is cleaned here.
function shown(value: Interpolated): Interpolated {
  if (typeof value === 'string') return withoutBidiControls(value);
  return Array.isArray(value) ? value.map(shown) : value;
}

/** The one template tag (hono's), over text without bidi controls. */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  const out = honoHtml(strings, ...values.map(shown));
  // hono answers a promise only when a value is one, or carries render callbacks; none here is.
  if (out instanceof Promise) throw new TypeError('an asynchronous value in a page template');
  return out;
}

/** Text escaped for an element body or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return html`${value}`.toString();
}

/** `checked` / `selected` / `disabled` attributes, when the condition holds. */
export function attr(name: 'checked' | 'selected' | 'disabled' | 'required', on: boolean): SafeHtml {
  return raw(on ? ` ${name}` : '');
}
