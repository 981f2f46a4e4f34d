import { withoutBidiControls } from '../../model/shown-text.ts';

/**
 * HTML escaping for the server-rendered pages. Every interpolated value goes through `html`,
 * which escapes it unless it is already `SafeHtml` (built by `html` itself). There is no other
 * way to put text into a page, so user data can never be concatenated in raw.
 */
export class SafeHtml {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  toString(): string {
    return this.#value;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for an element body or a quoted attribute value. */
export function escapeHtml(value: string): string {
  // Drawn text never carries bidi controls (model/shown-text.ts): they redraw outside text.
  return withoutBidiControls(value).replace(/[&<>"'`]/g, (ch) => ENTITIES[ch]!);
}

type Interpolated = SafeHtml | string | number | boolean | null | undefined | readonly Interpolated[];

function render(value: Interpolated): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * The one template tag: literal parts are trusted markup, every `${value}` is escaped (arrays
 * are joined, `SafeHtml` from nested `html` calls is kept, null/undefined/false render nothing).
 */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** `checked` / `selected` / `disabled` attributes, when the condition holds. */
export function attr(name: 'checked' | 'selected' | 'disabled' | 'required', on: boolean): SafeHtml {
  return new SafeHtml(on ? ` ${name}` : '');
}
