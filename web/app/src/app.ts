import type { InboxState } from '../../../src/operations/inbox/inbox-state.ts';
import type { SurfaceParts } from '../../../src/surfaces/shared/a2ui/index.ts';
import { A2uiRenderer, type SurfaceAction } from './a2ui-renderer.ts';
import { ActionError, runAction } from './actions.ts';
import { learnAppNames } from './app-names.ts';
import type { AppContext, Section, View } from './context.ts';
import { h, swap } from './dom.ts';
import { pageConfig } from './page-config.ts';
import { pendingRequests } from './requests.ts';
import { type Connection, type ConsentInterrupt, ReviewStream } from './review-stream.ts';
import { accessView } from './views/access.ts';
import { activityView, noteAuditAppended } from './views/activity.ts';
import { dataView } from './views/data.ts';
import { disagreementsView } from './views/disagreements.ts';
import { historyView } from './views/history.ts';
import { overviewView } from './views/overview.ts';
import { preferenceView } from './views/preference.ts';
import { receiptsView } from './views/receipts.ts';
import { securityView } from './views/security.ts';
import { sensitiveView } from './views/sensitive.ts';

// The app: one following review run keeps the state; each change redraws the sections of the
// current view whose content changed (focus stays where it was); the views are client-side paths
// under /app, each also served by the provider, so a reload or a shared link lands on it.

const VIEWS: readonly View[] = [
  overviewView,
  accessView,
  historyView,
  activityView,
  dataView,
  disagreementsView,
  sensitiveView,
  preferenceView,
  receiptsView,
  securityView,
];

export function startApp(): void {
  const config = pageConfig();
  const root = document.getElementById('app');
  if (!root) return;
  const renderer = new A2uiRenderer(config.a2ui);
  // The links between views keep a chosen v0.8, so a reload stays in it.
  const keep = config.a2ui === 'v0.8' ? '?a2ui=v0.8' : '';
  let requests: ConsentInterrupt[] = [];
  let connection: { status: Connection; words?: string } = { status: 'connecting' };

  const status = h('p', { class: 'status', id: 'connection', role: 'status' });
  const notices = h('div', { class: 'notices', id: 'notices', 'aria-live': 'polite' });
  const nav = h('nav', { 'aria-label': 'Sections' });
  const main = h('main', { id: 'main', tabindex: '-1' });
  const signOut = h(
    'form',
    { method: 'post', action: '/signout', class: 'signout' },
    h('input', { type: 'hidden', name: 'csrf', value: config.csrf }),
    h('button', { type: 'submit' }, 'Sign out'),
  );
  const header = h(
    'header',
    { class: 'top app-top' },
    h('span', { class: 'brand' }, config.providerName),
    h('span', { class: 'who' }, `Signed in as ${config.username}`),
    signOut,
  );
  root.replaceChildren(
    h('a', { href: '#main', class: 'skip' }, 'Skip to the content'),
    header,
    nav,
    status,
    notices,
    main,
  );

  const stream = new ReviewStream(config.csrf, {
    state: (state) => {
      void learnAppNames(namesIn(state, requests)).then((learned) => learned && draw());
      draw();
    },
    connection: (s, words) => {
      connection = words === undefined ? { status: s } : { status: s, words };
      drawStatus();
      if (s === 'signed-out' || s === 'failed') draw();
    },
    requestsChanged: () => refreshRequests(),
    auditAppended: () => {
      noteAuditAppended();
      if (current() === activityView) draw();
    },
  });

  let refreshing: Promise<void> | undefined;
  let again = false;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * A request leaves the page when it expires, without a reload (issue 22 item 10): the section
   * shows live ones only, and the provider is asked again then (it lists live ones only).
   */
  function refreshAtNextExpiry(): void {
    clearTimeout(expiryTimer);
    const ends = requests.flatMap((r) => (r.expiresAt ? [Date.parse(r.expiresAt)] : []));
    if (ends.length === 0) return;
    expiryTimer = setTimeout(refreshRequests, Math.max(0, Math.min(...ends) - Date.now()) + 1000);
  }
  function refreshRequests(): void {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = pendingRequests(config.csrf)
      .then((found) => {
        requests = found;
        refreshAtNextExpiry();
        void learnAppNames(found.map((r) => r.request.client_id)).then((learned) => learned && draw());
      })
      .catch((e: unknown) =>
        notify(`The apps asking for your preferences could not be shown: ${(e as Error).message}`, 'error'),
      )
      .finally(() => {
        refreshing = undefined;
        draw();
        if (again) {
          again = false;
          refreshRequests();
        }
      });
  }

  function notify(words: string, kind: 'ok' | 'error' = 'ok'): void {
    const note = h(
      'p',
      { class: kind === 'error' ? 'error' : 'notice', role: kind === 'error' ? 'alert' : undefined },
      words,
    );
    const close = h('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss this message' }, '×');
    close.addEventListener('click', () => note.remove());
    note.append(' ', close);
    notices.replaceChildren(note);
  }

  const ctx: AppContext = {
    csrf: config.csrf,
    username: config.username,
    providerName: config.providerName,
    state: () => stream.state,
    requests: () => requests,
    now: () => new Date(),
    surface(parts: SurfaceParts, onAction: (a: SurfaceAction) => void): HTMLElement {
      return renderer.show(parts, onAction);
    },
    async act(name, args, done) {
      try {
        const value = await runAction(config.csrf, name, args);
        if (done !== undefined) notify(done);
        return value ?? null;
      } catch (e) {
        notify(e instanceof ActionError ? e.message : 'Something went wrong. Try again.', 'error');
        return undefined;
      }
    },
    notify,
    redraw: () => draw(),
    refreshRequests,
    go(path) {
      history.pushState(null, '', path);
      draw();
      main.focus();
    },
  };

  let drawnView: View | undefined;
  const drawn = new Map<string, { key: string; el: HTMLElement }>();

  function current(): View {
    const path = location.pathname.replace(/\/+$/, '') || '/app';
    return VIEWS.find((v) => v.path === path) ?? overviewView;
  }

  function drawStatus(): void {
    const words: Record<Connection, string> = {
      connecting: 'Connecting…',
      live: 'Up to date: changes show here as they happen.',
      reconnecting: 'Reconnecting…',
      'signed-out': 'You are signed out.',
      failed: 'Not up to date.',
    };
    status.textContent = connection.words ?? words[connection.status];
    status.className = `status ${connection.status}`;
    if (connection.status === 'signed-out')
      status.append(
        ' ',
        h('a', { href: `/signin?return_to=${encodeURIComponent(location.pathname)}` }, 'Sign in again'),
      );
  }

  function drawNav(view: View): void {
    nav.replaceChildren(
      h(
        'ul',
        {},
        ...VIEWS.filter((v) => v.inNav !== false).map((v) =>
          h(
            'li',
            {},
            h(
              'a',
              {
                href: v.path + keep,
                'data-title': v.title,
                'aria-current': v === view ? 'page' : undefined,
                onclick: (e: Event) => {
                  const m = e as MouseEvent;
                  if (m.ctrlKey || m.metaKey || m.shiftKey || m.button !== 0) return;
                  e.preventDefault();
                  if (v !== current()) history.pushState(null, '', v.path + keep);
                  draw();
                  main.focus();
                },
              },
              v.label ?? v.title,
            ),
          ),
        ),
      ),
    );
  }

  function draw(): void {
    const view = current();
    if (view !== drawnView) {
      // A message was about the view it was said on.
      if (drawnView !== undefined) notices.replaceChildren();
      drawnView = view;
      drawn.clear();
      main.replaceChildren(h('h1', { id: 'view-title' }, view.title));
      document.title = `${view.title} · ${config.providerName}`;
      drawNav(view);
    }
    let sections: Section[];
    try {
      sections = view.sections(ctx);
    } catch (e) {
      console.error(e);
      main.replaceChildren(
        h('h1', {}, view.title),
        h(
          'p',
          { class: 'error', role: 'alert' },
          'This part of the page could not be shown. Reload the page to try again.',
        ),
      );
      drawnView = undefined;
      return;
    }
    const seen = new Set<string>();
    let after: Element = main.firstElementChild as Element;
    for (const s of sections) {
      seen.add(s.id);
      const old = drawn.get(s.id);
      let el: HTMLElement;
      if (old && old.key === s.key) el = old.el;
      else {
        el = safeBuild(s);
        if (old) swap(old.el, el);
        drawn.set(s.id, { key: s.key, el });
      }
      if (after.nextElementSibling !== el) after.after(el);
      after = el;
    }
    for (const [id, { el }] of drawn) {
      if (!seen.has(id)) {
        el.remove();
        drawn.delete(id);
      }
    }
    if (
      document.activeElement === document.body &&
      lastFocus &&
      !document.contains(lastFocus) &&
      lastSection !== ''
    ) {
      // What had the focus went away (a revoked grant's card): its section's heading takes it.
      const heading = main.querySelector<HTMLElement>(`#${CSS.escape(lastSection)} h2`);
      heading?.focus();
    }
  }

  let lastFocus: Element | null = null;
  let lastSection = '';
  document.addEventListener('focusin', () => {
    lastFocus = document.activeElement;
    lastSection = lastFocus?.closest('main > section')?.id ?? '';
  });

  window.addEventListener('popstate', () => draw());
  // A link inside a view to another view (`data-view`) moves like the navigation: no reload.
  main.addEventListener('click', (e) => {
    const link = (e.target as Element | null)?.closest?.('a[data-view]');
    const m = e as MouseEvent;
    if (!(link instanceof HTMLAnchorElement) || m.ctrlKey || m.metaKey || m.shiftKey || m.button !== 0)
      return;
    e.preventDefault();
    history.pushState(null, '', (link.getAttribute('data-view') ?? '/app') + keep);
    draw();
    main.focus();
  });
  drawStatus();
  draw();
  refreshRequests();
  void stream.follow();
}

function safeBuild(s: Section): HTMLElement {
  try {
    return s.build();
  } catch (e) {
    console.error(e);
    return h(
      'section',
      { id: s.id },
      h(
        'p',
        { class: 'error', role: 'alert' },
        'This part of the page could not be shown. Reload the page to try again.',
      ),
    );
  }
}

function namesIn(state: InboxState, requests: readonly ConsentInterrupt[]): string[] {
  return [
    ...state.active_grants.map((g) => g.grantee_id),
    ...state.pending_reviews.map((r) => (r.kind === 'writeback_proposal' ? r.client_id : r.grantee_id)),
    ...requests.map((r) => r.request.client_id),
  ];
}
