import type { ConsentGrant } from '../../../../src/model/consent-grant.ts';
import { grantCard } from '../../../../src/surfaces/shared/a2ui/index.ts';
import { appName, appNames } from '../app-names.ts';
import { confirmStep } from '../confirm-step.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { explainButton } from '../explain-button.ts';
import { lastUsed, usageKey } from '../grant-usage.ts';
import { byApp } from '../grants-by-app.ts';
import { areaTitle, dayWords, relativeWords } from '../words.ts';

// Who can see what, right now: each app's access (GrantCard: what for, which areas and kinds,
// until when, given when, last used, and revoke after a confirmation step), several grants of one
// app grouped under its name; then the same read area by area.

export const accessView: View = {
  path: '/app/access',
  title: 'Who can see what',
  label: 'Apps',
  sections: (ctx) => [grantsSection(ctx), areasSection(ctx)],
};

function grantsSection(ctx: AppContext): Section {
  const grants = ctx.state()?.active_grants ?? [];
  for (const g of grants) lastUsed(ctx, g.grant_id);
  const apps = byApp(grants);
  return {
    id: 'grants',
    key: JSON.stringify([grants, appNames(), usageKey(), ctx.now().toISOString().slice(0, 10)]),
    build: () => {
      const el = h(
        'section',
        { id: 'grants', 'aria-labelledby': 'grants-h' },
        h('h2', { id: 'grants-h', tabindex: '-1' }, 'Apps that can use your preferences'),
      );
      if (grants.length === 0) {
        el.append(h('p', { class: 'muted' }, 'No app can use your preferences right now.'));
        return el;
      }
      // Several grants of one app are one group: the app once, then each of its permissions.
      for (const [clientId, own] of apps) {
        if (own.length === 1) {
          el.append(grantSurface(ctx, own[0] as ConsentGrant));
          continue;
        }
        const headingId = `app-${clientId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
        el.append(
          h(
            'div',
            { class: 'app-group', role: 'group', 'aria-labelledby': headingId },
            h('h3', { id: headingId }, `${appName(clientId)}: ${own.length} separate permissions`),
            ...own.map((grant) => grantSurface(ctx, grant)),
          ),
        );
      }
      return el;
    },
  };
}

function grantSurface(ctx: AppContext, grant: ConsentGrant): HTMLElement {
  const box = h('div', { class: 'claim' });
  box.append(
    grantCardOf(ctx, grant, box),
    explainButton(ctx.csrf, { grant_id: grant.grant_id }, JSON.stringify(grant)),
  );
  return box;
}

function grantCardOf(ctx: AppContext, grant: ConsentGrant, box: HTMLElement): HTMLElement {
  const name = appName(grant.grantee_id);
  const lastUsedAt = lastUsed(ctx, grant.grant_id);
  return ctx.surface(
    grantCard(
      {
        grant,
        ...(name !== grant.grantee_id ? { clientName: name } : {}),
        ...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
      },
      ctx.now(),
    ),
    (a) => {
      if (a.name !== 'revoke' || box.querySelector('.confirm')) return;
      // Ending access takes a second, deliberate step: one click never does it.
      const trigger = document.activeElement as HTMLElement | null;
      const step = confirmStep({
        question: `Stop ${name} from using your preferences? It will be refused from its next request, and it cannot be undone: the app would have to ask you again.`,
        yes: 'Stop access',
        no: 'Keep access',
        onYes: async () => {
          await ctx.act(
            'revoke_consent_grant',
            { grant_id: grant.grant_id },
            `${name} can no longer use your preferences.`,
          );
          step.remove();
        },
        onNo: () => {
          step.remove();
          trigger?.focus();
        },
      });
      box.append(step);
    },
  );
}

function areasSection(ctx: AppContext): Section {
  const state = ctx.state();
  const grants = state?.active_grants ?? [];
  const areas = [
    ...new Set([
      ...(state?.claims ?? []).map((c) => c.namespace),
      ...grants.flatMap((g) => g.allowed_namespaces),
    ]),
  ].sort();
  return {
    id: 'areas',
    key: JSON.stringify([areas, grants, appNames()]),
    build: () => {
      const el = h(
        'section',
        { id: 'areas', 'aria-labelledby': 'areas-h' },
        h('h2', { id: 'areas-h' }, 'Area by area'),
      );
      if (areas.length === 0) {
        el.append(h('p', { class: 'muted' }, 'Nothing is stored about you yet.'));
        return el;
      }
      const body = h('tbody', {});
      for (const area of areas) {
        const seers = grants.filter((g) => g.allowed_namespaces.includes(area));
        const who =
          seers.length === 0
            ? 'Only you'
            : seers
                .map(
                  (g) =>
                    `${appName(g.grantee_id)}${g.expires_at ? ` (until ${dayWords(g.expires_at)}, ${relativeWords(g.expires_at, ctx.now())})` : ''}`,
                )
                .join('; ');
        body.append(h('tr', {}, h('th', { scope: 'row' }, areaTitle(area)), h('td', {}, who)));
      }
      el.append(
        h(
          'table',
          { class: 'plain' },
          h(
            'thead',
            {},
            h('tr', {}, h('th', { scope: 'col' }, 'Area'), h('th', { scope: 'col' }, 'Who can see it now')),
          ),
          body,
        ),
      );
      return el;
    },
  };
}
