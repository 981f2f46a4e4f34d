import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import type { SurfaceParts } from '../../../src/surfaces/shared/a2ui/index.ts';
import type { SurfaceAction } from './a2ui-renderer.ts';
import type { ConsentInterrupt } from './review-stream.ts';

// What every view is given: the state the stream keeps, the consent requests, and the means to
// act, show a surface and tell the person what happened.

export interface AppContext {
  readonly csrf: string;
  readonly username: string;
  readonly providerName: string;
  state(): InboxState | undefined;
  requests(): readonly ConsentInterrupt[];
  now(): Date;
  /** An A2UI surface drawn as HTML (processed again only when its messages changed). */
  surface(parts: SurfaceParts, onAction: (action: SurfaceAction) => void): HTMLElement;
  /**
   * Runs one action of the person's as a run of the review stream; says `done` when it worked,
   * the refusal in words when not. Resolves to the operation's output, or undefined on failure.
   */
  act(name: string, args: Record<string, unknown>, done?: string): Promise<unknown>;
  notify(words: string, kind?: 'ok' | 'error'): void;
  /** Draws the current view again (after something only the page knows changed). */
  redraw(): void;
  /** Re-reads the waiting consent requests. */
  refreshRequests(): void;
  /** Goes to another view of the app (a path under /app, with its query) without a reload. */
  go(path: string): void;
}

/** A view's part, redrawn only when `key` (what it shows) changes. */
export interface Section {
  readonly id: string;
  readonly key: string;
  build(): HTMLElement;
}

export interface View {
  readonly path: string;
  /** The page's heading. */
  readonly title: string;
  /** The navigation's words: one or two, so that every view fits one row at 1280 px; the title when absent. */
  readonly label?: string;
  /** False for a view reached by its links only (one preference's page). */
  readonly inNav?: false;
  sections(ctx: AppContext): Section[];
}
