import { A2uiMessageProcessor } from '@a2ui/web_core/data/model-processor';
import type { A2uiMessage } from '../../../src/surfaces/shared/a2ui/index.ts';
import { h } from './dom.ts';

// This app's own renderer of A2UI v0.8 messages (docs/web-app.md says why not @a2ui/lit's
// elements): the messages go through the official v0.8 message processor of @a2ui/web_core,
// which validates them and builds each surface's tree and data model; this file draws that tree
// as plain, accessible HTML (real buttons, labelled inputs, a native select for MultipleChoice,
// headings for h1–h5) and reads and writes the data model the controls are bound to.

/** A Button's action, its context resolved against the surface's data model. */
export interface SurfaceAction {
  readonly surfaceId: string;
  readonly name: string;
  readonly context: Readonly<Record<string, unknown>>;
}

interface Node {
  readonly id: string;
  readonly type: string;
  readonly properties: Record<string, unknown>;
}

type Bound = { literalString?: string; literalNumber?: number; literalBoolean?: boolean; path?: string };

export class A2uiRenderer {
  readonly #processor = new A2uiMessageProcessor();

  /** Feeds messages to the processor (it throws on a message the v0.8 schema refuses). */
  process(messages: readonly A2uiMessage[]): void {
    this.#processor.processMessages(messages as never);
  }

  has(surfaceId: string): boolean {
    return this.#processor.getSurfaces().has(surfaceId);
  }

  /** The surface drawn as HTML; `onAction` gets each Button press. */
  render(surfaceId: string, onAction: (action: SurfaceAction) => void): HTMLElement {
    const surface = this.#processor.getSurfaces().get(surfaceId);
    const tree = surface?.componentTree as Node | null | undefined;
    const root = h('div', { class: 'a2-surface', 'data-surface': surfaceId });
    if (!tree) return root;
    root.append(this.#draw(surfaceId, tree, onAction, undefined));
    return root;
  }

  /** A value of the surface's data model, as plain JSON (the processor keeps objects as Maps). */
  read(surfaceId: string, path: string): unknown {
    return plain(this.#processor.getData({ dataContextPath: '/' } as never, path, surfaceId));
  }

  #write(surfaceId: string, path: string, value: unknown): void {
    this.#processor.setData({ dataContextPath: '/' } as never, path, value as never, surfaceId);
  }

  #value(surfaceId: string, bound: unknown): unknown {
    const b = bound as Bound | undefined;
    if (!b) return undefined;
    if (b.path !== undefined) return this.read(surfaceId, b.path);
    return b.literalString ?? b.literalNumber ?? b.literalBoolean;
  }

  #draw(
    s: string,
    node: Node,
    onAction: (a: SurfaceAction) => void,
    labelledBy: string | undefined,
  ): HTMLElement {
    const p = node.properties;
    const kids = (list: unknown) => (Array.isArray(list) ? (list as Node[]) : []);
    switch (node.type) {
      case 'Card':
        return h(
          'div',
          { class: 'a2-card', id: node.id },
          this.#draw(s, p['child'] as Node, onAction, undefined),
        );
      case 'Column':
      case 'Row': {
        const children = kids(p['children']);
        const first = children[0];
        const heading = first?.type === 'Text' && /^h[1-5]$/.test(String(first.properties['usageHint']));
        const hasControls = children.some((c) => CONTROLS.has(c.type));
        const el = h('div', { class: node.type === 'Row' ? 'a2-row' : 'a2-col', id: node.id });
        // A column that starts with a heading and holds controls is a labelled group.
        const label = heading && hasControls ? first.id : labelledBy;
        if (heading && hasControls) {
          el.setAttribute('role', 'group');
          el.setAttribute('aria-labelledby', first.id);
        }
        for (const c of children) el.append(this.#draw(s, c, onAction, label));
        return el;
      }
      case 'List': {
        const el = h('ul', { class: 'a2-list', id: node.id });
        for (const c of kids(p['children'])) el.append(h('li', {}, this.#draw(s, c, onAction, labelledBy)));
        return el;
      }
      case 'Text': {
        const words = String(this.#value(s, p['text']) ?? '');
        const hint = String(p['usageHint'] ?? 'body');
        if (/^h[1-5]$/.test(hint)) return h(hint as 'h3', { id: node.id, class: 'a2-heading' }, words);
        return h('p', { id: node.id, class: hint === 'caption' ? 'a2-caption' : 'a2-text' }, words);
      }
      case 'Icon': {
        const name = String(this.#value(s, p['name']) ?? '');
        // The words beside an icon say what it means; the icon itself is decoration.
        return h('span', { class: `a2-icon a2-icon-${name}`, 'aria-hidden': 'true' }, ICONS[name] ?? '•');
      }
      case 'Divider':
        return h('hr', { class: 'a2-divider' });
      case 'Button': {
        const child = p['child'] as Node | undefined;
        const label = child ? String(this.#value(s, child.properties['text']) ?? '') : '';
        const action = p['action'] as { name: string; context?: { key: string; value: unknown }[] };
        return h(
          'button',
          {
            type: 'button',
            id: node.id,
            class: p['primary'] === true ? 'primary' : undefined,
            'data-action': action.name,
            onclick: () => {
              const context: Record<string, unknown> = {};
              for (const entry of action.context ?? []) context[entry.key] = this.#value(s, entry.value);
              onAction({ surfaceId: s, name: action.name, context });
            },
          },
          label,
        );
      }
      case 'CheckBox': {
        const bound = p['value'] as Bound;
        const box = h('input', { type: 'checkbox', id: node.id });
        box.checked = this.#value(s, bound) === true;
        box.addEventListener('change', () => {
          if (bound.path !== undefined) this.#write(s, bound.path, box.checked);
        });
        return h(
          'label',
          { class: 'a2-check' },
          box,
          h('span', {}, String(this.#value(s, p['label']) ?? '')),
        );
      }
      case 'Slider': {
        const bound = p['value'] as Bound;
        const min = Number(p['minValue'] ?? 0);
        const max = Number(p['maxValue'] ?? 100);
        const input = h('input', {
          type: 'range',
          id: node.id,
          min: String(min),
          max: String(max),
          step: '1',
        });
        input.value = String(this.#value(s, bound) ?? min);
        input.setAttribute('aria-valuetext', `${input.value}%`);
        input.addEventListener('input', () => {
          input.setAttribute('aria-valuetext', `${input.value}%`);
          if (bound.path !== undefined) this.#write(s, bound.path, Number(input.value));
        });
        const words = String(this.#value(s, p['label']) ?? '');
        return h('div', { class: 'a2-slider' }, h('label', { for: node.id }, words), input);
      }
      case 'DateTimeInput': {
        const bound = p['value'] as Bound;
        const input = h('input', { type: p['enableTime'] === true ? 'datetime-local' : 'date', id: node.id });
        if (labelledBy) input.setAttribute('aria-labelledby', labelledBy);
        input.value = String(this.#value(s, bound) ?? '');
        input.addEventListener('change', () => {
          if (bound.path !== undefined) this.#write(s, bound.path, input.value);
        });
        return input;
      }
      case 'MultipleChoice': {
        const bound = p['selections'] as Bound;
        const chosen = this.#value(s, bound);
        const current = Array.isArray(chosen) ? String(chosen[0] ?? '') : String(chosen ?? '');
        const select = h('select', { id: node.id });
        if (labelledBy) select.setAttribute('aria-labelledby', labelledBy);
        for (const o of (p['options'] as { label: unknown; value: string }[]) ?? []) {
          const option = h('option', { value: o.value }, String(this.#value(s, o.label) ?? o.value));
          option.selected = o.value === current;
          select.append(option);
        }
        select.addEventListener('change', () => {
          if (bound.path !== undefined) this.#write(s, bound.path, [select.value]);
        });
        return select;
      }
      default:
        // A component this page does not draw still says something rather than vanish.
        return h('p', { class: 'a2-caption' }, 'This part cannot be shown here.');
    }
  }
}

const CONTROLS = new Set(['CheckBox', 'Slider', 'DateTimeInput', 'MultipleChoice', 'TextField']);

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

/** Maps (the processor's objects) to plain objects, recursively. */
function plain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}
