import {
  A2uiMessageSchema,
  BASIC_COMPONENTS,
  BASIC_FUNCTIONS,
  Catalog,
  type ComponentApi,
  type ComponentNode,
  isComponentNode,
  isWritable,
  MessageProcessor,
  NodeResolver,
  peekValue,
  ResolvedBinding,
  type SurfaceModel,
} from '@a2ui/web_core/v0_9';
import { type A2uiMessageV09, BASIC_CATALOG_V09 } from '../../../src/surfaces/shared/a2ui/index.ts';
import { type Part, part, type SurfaceAction, type Surfaces } from './a2ui-surfaces.ts';

// A2UI v0.9 for the renderer (a2ui-surfaces.ts), all of it done by @a2ui/web_core's v0.9 layer:
// each message is checked against the v0.9 message schema, the MessageProcessor (with the basic
// catalog's component schemas and functions, not its Lit elements) checks every component against
// the catalog and keeps the surface's components and data model, and a NodeResolver turns them
// into a tree of nodes whose properties are resolved: bound values read from the data model
// (writable where bound to a path), child ids the child nodes, and a Button's action a closure
// that resolves its context from the data model and emits the v0.9 client action, which the
// processor hands to this file's handler. The tree is read into parts here.

type Resolver = NodeResolver<ComponentApi>;

export class SurfacesV09 implements Surfaces<A2uiMessageV09> {
  readonly #catalog = new Catalog<ComponentApi>(BASIC_CATALOG_V09, BASIC_COMPONENTS, BASIC_FUNCTIONS);
  /** Where a surface's actions go: the `onAction` of the tree last drawn for it. */
  readonly #handlers = new Map<string, (action: SurfaceAction) => void>();
  readonly #processor = new MessageProcessor<ComponentApi>([this.#catalog], (a) => {
    this.#handlers.get(a.surfaceId)?.({ surfaceId: a.surfaceId, name: a.name, context: a.context ?? {} });
  });
  /** One resolver per surface model (a surface deleted and made again gets a new one). */
  readonly #resolvers = new Map<string, { surface: SurfaceModel<ComponentApi>; resolver: Resolver }>();

  process(messages: readonly A2uiMessageV09[]): void {
    for (const m of messages) A2uiMessageSchema.parse(m);
    this.#processor.processMessages(messages as never);
    for (const [id, { surface, resolver }] of this.#resolvers) {
      if (this.#processor.model.getSurface(id) === surface) continue;
      resolver.dispose();
      this.#resolvers.delete(id);
      this.#handlers.delete(id);
    }
  }

  has(surfaceId: string): boolean {
    return this.#processor.model.getSurface(surfaceId) !== undefined;
  }

  tree(surfaceId: string, onAction: (action: SurfaceAction) => void, rootId?: string): Part | undefined {
    const root = this.#resolver(surfaceId)?.rootNode;
    const node = root ? peekValue(root) : undefined;
    if (!node) return undefined;
    this.#handlers.set(surfaceId, onAction);
    const model = this.#processor.model.getSurface(surfaceId) as SurfaceModel<ComponentApi>;
    return this.#part(model, node, rootId ?? `${surfaceId}-root`, onAction);
  }

  read(surfaceId: string, path: string): unknown {
    return this.#processor.model.getSurface(surfaceId)?.dataModel.get(path);
  }

  #resolver(surfaceId: string): Resolver | undefined {
    const surface = this.#processor.model.getSurface(surfaceId);
    if (!surface) return undefined;
    const kept = this.#resolvers.get(surfaceId);
    if (kept?.surface === surface) return kept.resolver;
    kept?.resolver.dispose();
    const resolver = new NodeResolver(surface, this.#catalog);
    this.#resolvers.set(surfaceId, { surface, resolver });
    return resolver;
  }

  #part(
    surface: SurfaceModel<ComponentApi>,
    node: ComponentNode,
    rootId: string,
    onAction: (a: SurfaceAction) => void,
  ): Part {
    const p = peekValue(node.props);
    const id = node.componentId === 'root' ? rootId : node.componentId;
    const nodes = (v: unknown): ComponentNode[] =>
      Array.isArray(v) ? v.filter(isComponentNode) : isComponentNode(v) ? [v] : [];
    const children = (v: unknown) => nodes(v).map((n) => this.#part(surface, n, rootId, onAction));
    const words = (v: unknown) => String(resolved(v) ?? '');
    const writer = (v: unknown) =>
      v instanceof ResolvedBinding && isWritable(v) ? (value: unknown) => v.set(value) : undefined;
    switch (node.type) {
      case 'Card':
        return part(id, 'Card', { children: children(p['child']) });
      case 'Column':
      case 'Row':
      case 'List':
        return part(id, node.type, { children: children(p['children']) });
      case 'Text':
        return part(id, 'Text', { words: words(p['text']), variant: String(p['variant'] ?? 'body') });
      case 'Icon':
        return part(id, 'Icon', { words: words(p['name']) });
      case 'Divider':
        return part(id, 'Divider');
      case 'Button': {
        // The resolved action is a closure; its name is in the component as sent.
        const sent = surface.componentsModel.get(node.componentId)?.properties as
          | { action?: { event?: { name?: string } } }
          | undefined;
        const act = p['action'];
        return part(id, 'Button', {
          variant: String(p['variant'] ?? 'default'),
          children: children(p['child']),
          action: sent?.action?.event?.name,
          press:
            typeof act === 'function'
              ? () => {
                  this.#handlers.set(surface.id, onAction);
                  (act as () => void)();
                }
              : undefined,
        });
      }
      case 'CheckBox':
        return part(id, 'CheckBox', {
          words: words(p['label']),
          value: resolved(p['value']),
          write: writer(p['value']),
        });
      case 'Slider':
        return part(id, 'Slider', {
          words: words(p['label']),
          value: resolved(p['value']),
          write: writer(p['value']),
          min: Number(p['min'] ?? 0),
          max: Number(p['max'] ?? 100),
        });
      case 'DateTimeInput':
        return part(id, 'DateTimeInput', {
          value: resolved(p['value']),
          write: writer(p['value']),
          time: p['enableTime'] === true,
        });
      case 'ChoicePicker': {
        const chosen = resolved(p['value']);
        return part(id, 'ChoicePicker', {
          value: Array.isArray(chosen) ? chosen : chosen === undefined ? [] : [chosen],
          write: writer(p['value']),
          options: ((p['options'] as { label: unknown; value: string }[] | undefined) ?? []).map((o) => ({
            label: String(resolved(o.label) ?? o.value),
            value: o.value,
          })),
        });
      }
      default:
        // A placeholder (a child that never came) or a type this page does not draw.
        return part(id, node.type);
    }
  }
}

/** A resolved property's value (a binding's snapshot, or the value itself). */
function resolved(v: unknown): unknown {
  return v instanceof ResolvedBinding ? v.value : v;
}
