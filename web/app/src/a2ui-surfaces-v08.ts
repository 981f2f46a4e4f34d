import { A2uiMessageProcessor } from '@a2ui/web_core/data/model-processor';
import type { A2uiMessage } from '../../../src/surfaces/shared/a2ui/index.ts';
import { type Part, part, type SurfaceAction, type Surfaces } from './a2ui-surfaces.ts';

// A2UI v0.8 for the renderer (a2ui-surfaces.ts): the messages go through the official v0.8
// message processor of @a2ui/web_core, which validates them and builds each surface's tree and
// data model; the tree is read into parts, each bound value (`{literalString}`, …, `{path}`)
// read from the data model, and a Button's action context resolved here (the v0.8 processor
// leaves that to the page).

interface Node {
  readonly id: string;
  readonly type: string;
  readonly properties: Record<string, unknown>;
}

type Bound = { literalString?: string; literalNumber?: number; literalBoolean?: boolean; path?: string };

export class SurfacesV08 implements Surfaces<A2uiMessage> {
  readonly #processor = new A2uiMessageProcessor();

  process(messages: readonly A2uiMessage[]): void {
    this.#processor.processMessages(messages as never);
  }

  has(surfaceId: string): boolean {
    return this.#processor.getSurfaces().has(surfaceId);
  }

  tree(surfaceId: string, onAction: (action: SurfaceAction) => void): Part | undefined {
    const tree = this.#processor.getSurfaces().get(surfaceId)?.componentTree as Node | null | undefined;
    return tree ? this.#part(surfaceId, tree, onAction) : undefined;
  }

  /** A value of the surface's data model, as plain JSON (the processor keeps objects as Maps). */
  read(surfaceId: string, path: string): unknown {
    return plain(this.#processor.getData({ dataContextPath: '/' } as never, path, surfaceId));
  }

  #value(surfaceId: string, bound: unknown): unknown {
    const b = bound as Bound | undefined;
    if (!b) return undefined;
    if (b.path !== undefined) return this.read(surfaceId, b.path);
    return b.literalString ?? b.literalNumber ?? b.literalBoolean;
  }

  #words(surfaceId: string, bound: unknown): string {
    return String(this.#value(surfaceId, bound) ?? '');
  }

  /** Writes at the path `bound` names; undefined for a literal (nothing to write to). */
  #writer(surfaceId: string, bound: unknown): ((value: unknown) => void) | undefined {
    const path = (bound as Bound | undefined)?.path;
    if (path === undefined) return undefined;
    return (value) =>
      this.#processor.setData({ dataContextPath: '/' } as never, path, value as never, surfaceId);
  }

  #part(s: string, node: Node, onAction: (a: SurfaceAction) => void): Part {
    const p = node.properties;
    const child = (n: unknown) => (n ? [this.#part(s, n as Node, onAction)] : []);
    const kids = (list: unknown) =>
      Array.isArray(list) ? (list as Node[]).map((c) => this.#part(s, c, onAction)) : [];
    switch (node.type) {
      case 'Card':
        return part(node.id, 'Card', { children: child(p['child']) });
      case 'Column':
      case 'Row':
      case 'List':
        return part(node.id, node.type, { children: kids(p['children']) });
      case 'Text':
        return part(node.id, 'Text', {
          words: this.#words(s, p['text']),
          variant: String(p['usageHint'] ?? 'body'),
        });
      case 'Icon':
        return part(node.id, 'Icon', { words: this.#words(s, p['name']) });
      case 'Divider':
        return part(node.id, 'Divider');
      case 'Button': {
        const action = p['action'] as { name: string; context?: { key: string; value: unknown }[] };
        return part(node.id, 'Button', {
          variant: p['primary'] === true ? 'primary' : 'default',
          children: child(p['child']),
          action: action.name,
          press: () => {
            const context: Record<string, unknown> = {};
            for (const entry of action.context ?? []) context[entry.key] = this.#value(s, entry.value);
            onAction({ surfaceId: s, name: action.name, context });
          },
        });
      }
      case 'CheckBox':
        return part(node.id, 'CheckBox', {
          words: this.#words(s, p['label']),
          value: this.#value(s, p['value']),
          write: this.#writer(s, p['value']),
        });
      case 'Slider':
        return part(node.id, 'Slider', {
          words: this.#words(s, p['label']),
          value: this.#value(s, p['value']),
          write: this.#writer(s, p['value']),
          min: Number(p['minValue'] ?? 0),
          max: Number(p['maxValue'] ?? 100),
        });
      case 'DateTimeInput':
        return part(node.id, 'DateTimeInput', {
          value: this.#value(s, p['value']),
          write: this.#writer(s, p['value']),
          time: p['enableTime'] === true,
        });
      case 'MultipleChoice': {
        const chosen = this.#value(s, p['selections']);
        return part(node.id, 'ChoicePicker', {
          value: Array.isArray(chosen) ? chosen : chosen === undefined ? [] : [chosen],
          write: this.#writer(s, p['selections']),
          options: ((p['options'] as { label: unknown; value: string }[]) ?? []).map((o) => ({
            label: String(this.#value(s, o.label) ?? o.value),
            value: o.value,
          })),
        });
      }
      default:
        return part(node.id, node.type);
    }
  }
}

/** Maps (the processor's objects) to plain objects, recursively. */
function plain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}
