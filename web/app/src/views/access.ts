import type { ConsentGrant } from '../../../../src/model/consent-grant.ts';
import { grantCard } from '../../../../src/surfaces/shared/a2ui/index.ts';
import { appName, appNames } from '../app-names.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { explainButton } from '../explain-button.ts';
import { areaTitle, dayWords, relativeWords } from '../words.ts';

// Who can see what, right now: each app's access (GrantCard: what for, which areas and kinds,
// until when, and revoke), then the same read area by area.

export const accessView: View = {
  path: '/app/access',
  title: 'Who can see what',
  sections: (ctx) => [grantsSection(ctx), areasSection(ctx)],
};

function grantsSection(ctx: AppContext): Section {
  const grants = ctx.state()?.active_grants ?? [];
  return {
    id: 'grants',
    key: JSON.stringify([grants, appNames(), ctx.now().toISOString().slice(0, 10)]),
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
      for (const grant of grants) el.append(grantSurface(ctx, grant));
      return el;
    },
  };
}

function grantSurface(ctx: AppContext, grant: ConsentGrant): HTMLElement {
  return h(
    'div',
    { class: 'claim' },
    grantCardOf(ctx, grant),
    explainButton(ctx.csrf, { grant_id: grant.grant_id }, JSON.stringify(grant)),
  );
}

function grantCardOf(ctx: AppContext, grant: ConsentGrant): HTMLElement {
  const name = appName(grant.grantee_id);
  return ctx.surface(
    grantCard({ grant, ...(name !== grant.grantee_id ? { clientName: name } : {}) }, ctx.now()),
    (a) => {
      if (a.name !== 'revoke') return;
      void ctx.act(
        'revoke_consent_grant',
        { grant_id: grant.grant_id },
        `${name} can no longer use your preferences.`,
      );
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
