import { withoutBidiControls } from '../../../src/model/shown-text.ts';

// A few DOM helpers: elements are made with text nodes and properties, never from HTML strings
// (the plots, which return escaped HTML, are the one exception; see views/plots.ts).

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined | ((e: Event) => void)>;

/** `h('p', {class: 'hint'}, 'words')`: attributes, `on…` listeners, children (falsy ones skipped). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, value);
  }
  append(el, ...children);
  return el;
}

function append(el: Element, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    // Outside text (values, keys, names) never draws with bidi controls (model/shown-text.ts).
    el.append(typeof c === 'string' ? document.createTextNode(withoutBidiControls(c)) : c);
  }
}

/** Replaces `old` by `next`, keeping the keyboard focus on the element with the same id. */
export function swap(old: Element, next: Element): void {
  const focused = document.activeElement;
  const focusId = focused && old.contains(focused) ? focused.id : '';
  old.replaceWith(next);
  if (focusId !== '') {
    const again = document.getElementById(focusId);
    if (again instanceof HTMLElement) again.focus();
  }
}
