// What the app's A2UI renderer draws, whichever version the messages came in (docs/web-app.md,
// "The renderer"): each version's processor of @a2ui/web_core validates the messages and keeps the
// surfaces (a2ui-surfaces-v08.ts, a2ui-surfaces-v09.ts); its tree is read into the same plain
// `Part`s, and a2ui-renderer.ts draws those as HTML, once for both versions. No DOM here, so
// the unit tests read both versions' parts in Node and compare them.

/** A Button's action, its context resolved against the surface's data model. */
export interface SurfaceAction {
  readonly surfaceId: string;
  readonly name: string;
  readonly context: Readonly<Record<string, unknown>>;
}

/**
 * One component of a surface, read out of a version's tree: its type in the v0.9 basic catalog's
 * names (a v0.8 MultipleChoice is a ChoicePicker), every bound value already read from the data
 * model, and the means to write a control's value and to press a button.
 */
export interface Part {
  readonly id: string;
  readonly type: string;
  /** Text: h1–h5, caption, body; Button: primary or default. */
  readonly variant: string | undefined;
  /** A Text's words, an Icon's name, a control's label. */
  readonly words: string;
  /** A control's value (a ChoicePicker's: the list of chosen values). */
  readonly value: unknown;
  /** Writes a control's value at the path it is bound to; undefined for a literal. */
  readonly write: ((value: unknown) => void) | undefined;
  /** A Slider's range. */
  readonly min: number;
  readonly max: number;
  /** A DateTimeInput that takes a time too. */
  readonly time: boolean;
  /** A ChoicePicker's options. */
  readonly options: readonly { readonly label: string; readonly value: string }[];
  /** A Card's or Button's child, a Row's, Column's or List's children. */
  readonly children: readonly Part[];
  /** A Button's action name. */
  readonly action: string | undefined;
  /** Presses a Button: its action, the context resolved, goes to the `onAction` of `tree`. */
  readonly press: (() => void) | undefined;
}

/** One A2UI version's surfaces, as the renderer uses them. */
export interface Surfaces<M> {
  /** Feeds messages to the version's processor (it throws on one it refuses). */
  process(messages: readonly M[]): void;
  has(surfaceId: string): boolean;
  /**
   * The surface's tree as parts, undefined while it has none; `rootId` is the id its root is
   * drawn with (v0.9 calls every surface's root `root`).
   */
  tree(surfaceId: string, onAction: (action: SurfaceAction) => void, rootId?: string): Part | undefined;
  /** A value of the surface's data model, as plain JSON. */
  read(surfaceId: string, path: string): unknown;
}

/** A part with nothing set but its id and type. */
export function part(id: string, type: string, set: Partial<Part> = {}): Part {
  return {
    id,
    type,
    variant: undefined,
    words: '',
    value: undefined,
    write: undefined,
    min: 0,
    max: 100,
    time: false,
    options: [],
    children: [],
    action: undefined,
    press: undefined,
    ...set,
  };
}
