import { namespaceOfKey, normalizeKey, qualifiedKey } from '../../../../src/model/claim.ts';
import type { ConsentGrant } from '../../../../src/model/consent-grant.ts';
import { extensionFor } from '../../../../src/model/extensions/index.ts';
import { keyWords, valueWords } from '../../../../src/surfaces/shared/describe.ts';
import { appName, appNames } from '../app-names.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { listWords } from '../words.ts';
import { preferencePath } from './preference.ts';

// The person's sensitive preferences (docs/web-app.md): the keys they marked sensitive
// (get_sensitive_keys) and every key of an area its vocabulary calls high-impact; for each, what
// it is, what it says and which apps may see it under the person's access grants. The person
// chooses which keys are sensitive here (set_sensitive_keys): an app's change to one always waits
// for them.

export const sensitiveView: View = {
  path: '/app/data/sensitive',
  title: 'Sensitive preferences',
  label: 'Sensitive',
  sections: (ctx) => [listSection(ctx), chooseSection(ctx)],
};

let held: { seq: number; keys: string[] } | undefined;
let loading: number | undefined;

function marked(ctx: AppContext): string[] | undefined {
  const seq = ctx.state()?.seq;
  if (seq === undefined) return undefined;
  if (held?.seq !== seq && loading !== seq) {
    loading = seq;
    void ctx.act('get_sensitive_keys', {}).then((out) => {
      if (loading === seq) loading = undefined;
      const keys = (out as { sensitive_keys?: string[] } | undefined)?.sensitive_keys;
      if (keys !== undefined) held = { seq, keys };
      ctx.redraw();
    });
  }
  return held?.keys;
}

/** Whether an app under this grant may see the key (its areas, and its keys when it names some). */
function grantSees(grant: ConsentGrant, key: string): boolean {
  if (!grant.allowed_namespaces.includes(namespaceOfKey(key))) return false;
  return grant.allowed_claim_keys === undefined || grant.allowed_claim_keys.map(normalizeKey).includes(key);
}

function highImpact(key: string): boolean {
  return extensionFor(namespaceOfKey(key))?.privacy_guidance?.high_impact === true;
}

function listSection(ctx: AppContext): Section {
  const state = ctx.state();
  const keys = marked(ctx);
  const claims = state?.claims ?? [];
  const grants = state?.active_grants ?? [];
  const sensitive =
    keys === undefined
      ? undefined
      : claims.filter((c) => keys.includes(qualifiedKey(c)) || highImpact(qualifiedKey(c)));
  return {
    id: 'sensitive-list',
    key: JSON.stringify([sensitive ?? null, grants, appNames()]),
    build: () => {
      const el = h(
        'section',
        { id: 'sensitive-list', 'aria-labelledby': 'sensitive-list-h' },
        h('h2', { id: 'sensitive-list-h', tabindex: '-1' }, 'Your sensitive preferences'),
      );
      if (sensitive === undefined) {
        el.append(h('p', { class: 'muted' }, 'Loading…'));
        return el;
      }
      if (sensitive.length === 0) {
        el.append(h('p', { class: 'muted' }, 'None of your preferences is marked sensitive.'));
        return el;
      }
      const list = h('ul', { class: 'plain-list' });
      for (const c of sensitive) {
        const key = qualifiedKey(c);
        const words = keyWords(key);
        const seers = grants.filter((g) => grantSees(g, key)).map((g) => appName(g.grantee_id));
        list.append(
          h(
            'li',
            { class: 'a2-card plain-card sensitive-key' },
            h('h3', {}, words.name),
            words.description !== undefined ? h('p', { class: 'a2-caption' }, words.description) : null,
            h('p', {}, `It says: ${valueWords(c.value, key, c.units)}.`),
            h(
              'p',
              {},
              h('strong', {}, 'Who can see it: '),
              seers.length === 0 ? 'only you.' : `${listWords([...new Set(seers)])}, under what you allowed.`,
            ),
            highImpact(key)
              ? h('p', { class: 'a2-caption' }, 'Its whole area is sensitive by nature.')
              : null,
            h('p', {}, h('a', { href: preferencePath(key) }, `See and change ${words.name.toLowerCase()}`)),
          ),
        );
      }
      el.append(list);
      return el;
    },
  };
}

function chooseSection(ctx: AppContext): Section {
  const keys = marked(ctx);
  const own = [...new Set((ctx.state()?.claims ?? []).map(qualifiedKey))].sort();
  const all = [...new Set([...own, ...(keys ?? [])])];
  return {
    id: 'sensitive-choose',
    key: JSON.stringify([keys ?? null, all]),
    build: () => {
      const el = h(
        'section',
        { id: 'sensitive-choose', 'aria-labelledby': 'sensitive-choose-h' },
        h('h2', { id: 'sensitive-choose-h', tabindex: '-1' }, 'Choose which are sensitive'),
        h(
          'p',
          {},
          'A change an app suggests to a sensitive preference always waits for you, whatever you allowed it.',
        ),
      );
      if (keys === undefined || all.length === 0) {
        el.append(
          h('p', { class: 'muted' }, keys === undefined ? 'Loading…' : 'Nothing is stored about you.'),
        );
        return el;
      }
      const boxes = all.map((key, i) =>
        h('input', { type: 'checkbox', id: `sensitive-${i}`, value: key, checked: keys.includes(key) }),
      );
      const form = h(
        'form',
        { id: 'sensitive-form' },
        h(
          'fieldset',
          {},
          h('legend', {}, 'Sensitive preferences'),
          ...all.map((key, i) =>
            h(
              'div',
              { class: 'option' },
              boxes[i] as HTMLElement,
              h('label', { for: `sensitive-${i}` }, keyWords(key).name),
            ),
          ),
        ),
        h('div', { class: 'actions' }, h('button', { type: 'submit', id: 'sensitive-save' }, 'Save')),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void ctx.act(
          'set_sensitive_keys',
          { sensitive_keys: boxes.filter((b) => b.checked).map((b) => b.value) },
          'Saved. Changes apps suggest to these now wait for you.',
        );
      });
      el.append(form);
      return el;
    },
  };
}
