import {
  type A2uiMessage,
  type A2uiMessageV09,
  deleteSurface,
  deleteSurfaceV09,
  type SurfaceParts,
  surfaceMessages,
  surfaceMessagesV09,
} from '../../../src/surfaces/shared/a2ui/index.ts';
import type { Part, SurfaceAction, Surfaces } from './a2ui-surfaces.ts';
import { SurfacesV08 } from './a2ui-surfaces-v08.ts';
import { SurfacesV09 } from './a2ui-surfaces-v09.ts';
import { h } from './dom.ts';

export type { SurfaceAction } from './a2ui-surfaces.ts';

// This app's own renderer of A2UI messages (docs/web-app.md says why not @a2ui/lit's elements),
// v0.9 by default, v0.8 on request (docs/a2ui.md, "Two versions"): the messages go through the
// official processor of @a2ui/web_core for their version, which validates them and keeps each
// surface's tree and data model (a2ui-surfaces-v08.ts, a2ui-surfaces-v09.ts); the tree, read into
// the same parts for both, is drawn here as plain, accessible HTML (real buttons, labelled inputs,
// a native select for a choice, headings for h1–h5), its controls writing the data model they
// are bound to.

export type A2uiVersion = 'v0.8' | 'v0.9';

/** One version's surfaces and the messages that show and remove a surface in it. */
interface Versioned<M> {
  readonly surfaces: Surfaces<M>;
  readonly messages: (parts: SurfaceParts) => readonly M[];
  readonly remove: (surfaceId: string) => M;
}

function versioned(version: A2uiVersion): Versioned<A2uiMessage> | Versioned<A2uiMessageV09> {
  return version === 'v0.8'
    ? { surfaces: new SurfacesV08(), messages: surfaceMessages, remove: deleteSurface }
    : { surfaces: new SurfacesV09(), messages: surfaceMessagesV09, remove: deleteSurfaceV09 };
}

export class A2uiRenderer {
  readonly version: A2uiVersion;
  readonly #v: Versioned<unknown>;
  /** Each surface's messages as last processed (JSON), to process them again only when changed. */
  readonly #processed = new Map<string, string>();

  constructor(version: A2uiVersion = 'v0.9') {
    this.version = version;
    this.#v = versioned(version) as Versioned<unknown>;
  }

  /**
   * A surface drawn as HTML: its messages (in this renderer's version) processed again only when
   * they changed, so what the person set in a control survives a redraw; `onAction` gets each
   * Button press.
   */
  show(parts: SurfaceParts, onAction: (action: SurfaceAction) => void): HTMLElement {
    const messages = this.#v.messages(parts);
    const text = JSON.stringify(messages);
    if (this.#processed.get(parts.surfaceId) !== text) {
      if (this.#v.surfaces.has(parts.surfaceId)) this.#v.surfaces.process([this.#v.remove(parts.surfaceId)]);
      this.#processed.delete(parts.surfaceId);
      this.#v.surfaces.process(messages);
      this.#processed.set(parts.surfaceId, text);
    }
    return this.#render(parts.surfaceId, onAction, parts.root);
  }

  /** The surface drawn as HTML (`rootId`: the id of its root, which v0.9 calls `root`). */
  #render(surfaceId: string, onAction: (action: SurfaceAction) => void, rootId?: string): HTMLElement {
    const root = h('div', { class: 'a2-surface', 'data-surface': surfaceId, 'data-a2ui': this.version });
    const tree = this.#v.surfaces.tree(surfaceId, onAction, rootId);
    if (tree) root.append(draw(tree, undefined));
    return root;
  }
}

const CONTROLS = new Set(['CheckBox', 'Slider', 'DateTimeInput', 'ChoicePicker', 'TextField']);
const HEADING = /^h[1-5]$/;

/** A part as HTML; `labelledBy` names the heading of the group a control is in. */
function draw(part: Part, labelledBy: string | undefined): HTMLElement {
  switch (part.type) {
    case 'Card': {
      const el = h('div', { class: 'a2-card', id: part.id });
      for (const c of part.children) el.append(draw(c, undefined));
      return el;
    }
    case 'Column':
    case 'Row': {
      const first = part.children[0];
      const heading = first?.type === 'Text' && HEADING.test(String(first.variant));
      const hasControls = part.children.some((c) => CONTROLS.has(c.type));
      const el = h('div', { class: part.type === 'Row' ? 'a2-row' : 'a2-col', id: part.id });
      // A column that starts with a heading and holds controls is a labelled group.
      const label = heading && hasControls ? first.id : labelledBy;
      if (heading && hasControls) {
        el.setAttribute('role', 'group');
        el.setAttribute('aria-labelledby', first.id);
      }
      for (const c of part.children) el.append(draw(c, label));
      return el;
    }
    case 'List': {
      const el = h('ul', { class: 'a2-list', id: part.id });
      for (const c of part.children) el.append(h('li', {}, draw(c, labelledBy)));
      return el;
    }
    case 'Text': {
      const hint = part.variant ?? 'body';
      if (HEADING.test(hint)) return h(hint as 'h3', { id: part.id, class: 'a2-heading' }, part.words);
      return h('p', { id: part.id, class: hint === 'caption' ? 'a2-caption' : 'a2-text' }, part.words);
    }
    case 'Icon':
      // The words beside an icon say what it means; the icon itself is decoration.
      return h(
        'span',
        { class: `a2-icon a2-icon-${part.words}`, 'aria-hidden': 'true' },
        ICONS[part.words] ?? '•',
      );
    case 'Divider':
      return h('hr', { class: 'a2-divider' });
    case 'Button': {
      const child = part.children[0];
      return h(
        'button',
        {
          type: 'button',
          id: part.id,
          class: part.variant === 'primary' ? 'primary' : undefined,
          'data-action': part.action,
          onclick: () => part.press?.(),
        },
        child?.type === 'Text' ? child.words : '',
      );
    }
    case 'CheckBox': {
      const box = h('input', { type: 'checkbox', id: part.id });
      box.checked = part.value === true;
      box.addEventListener('change', () => part.write?.(box.checked));
      return h('label', { class: 'a2-check' }, box, h('span', {}, part.words));
    }
    case 'Slider': {
      const input = h('input', {
        type: 'range',
        id: part.id,
        min: String(part.min),
        max: String(part.max),
        step: '1',
      });
      input.value = String(part.value ?? part.min);
      input.setAttribute('aria-valuetext', `${input.value}%`);
      input.addEventListener('input', () => {
        input.setAttribute('aria-valuetext', `${input.value}%`);
        part.write?.(Number(input.value));
      });
      return h('div', { class: 'a2-slider' }, h('label', { for: part.id }, part.words), input);
    }
    case 'DateTimeInput': {
      const input = h('input', { type: part.time ? 'datetime-local' : 'date', id: part.id });
      if (labelledBy) input.setAttribute('aria-labelledby', labelledBy);
      input.value = String(part.value ?? '');
      input.addEventListener('change', () => part.write?.(input.value));
      return input;
    }
    case 'ChoicePicker': {
      const chosen = Array.isArray(part.value) ? String(part.value[0] ?? '') : '';
      const select = h('select', { id: part.id });
      if (labelledBy) select.setAttribute('aria-labelledby', labelledBy);
      for (const o of part.options) {
        const option = h('option', { value: o.value }, o.label);
        option.selected = o.value === chosen;
        select.append(option);
      }
      select.addEventListener('change', () => part.write?.([select.value]));
      return select;
    }
    default:
      // A component this page does not draw still says something rather than vanish.
      return h('p', { class: 'a2-caption' }, 'This part cannot be shown here.');
  }
}

const ICONS: Record<string, string> = {
  person: '✓',
  help: '?',
  info: 'i',
  check: '✓',
  warning: '!',
  lock: '●',
  event: '◷',
  visibility: '◉',
};
