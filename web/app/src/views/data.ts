import { confirmStep } from '../confirm-step.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';
import { areaTitle } from '../words.ts';

// The person's own data: download all of it (export_profile, a file), delete one area
// (delete_namespace) or the whole profile (delete_profile), each after a confirmation step.

export const dataView: View = {
  path: '/app/data',
  title: 'Download or delete',
  label: 'Your data',
  sections: (ctx) => [exportSection(ctx), deleteSection(ctx)],
};

function exportSection(ctx: AppContext): Section {
  const has = ctx.state()?.profile_id != null;
  return {
    id: 'export',
    key: JSON.stringify([has]),
    build: () => {
      const button = h(
        'button',
        { type: 'button', class: 'primary', id: 'export-file' },
        'Download my preferences',
      );
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          const profile = await ctx.act('export_profile', {});
          if (profile !== undefined) {
            download(`my-preferences-${ctx.now().toISOString().slice(0, 10)}.json`, profile);
            ctx.notify('Your preferences were downloaded as a file.');
          }
        } finally {
          button.disabled = false;
        }
      });
      return h(
        'section',
        { id: 'export', 'aria-labelledby': 'export-h' },
        h('h2', { id: 'export-h', tabindex: '-1' }, 'Download everything'),
        h(
          'p',
          {},
          has
            ? 'A file with everything stored about you, which you can keep or take to another service.'
            : 'Nothing is stored about you, so the file would be empty.',
        ),
        h('div', { class: 'actions' }, button),
      );
    },
  };
}

function download(name: string, value: unknown): void {
  const blob = new Blob([`${JSON.stringify(value, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, class: 'hidden' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function deleteSection(ctx: AppContext): Section {
  const state = ctx.state();
  const areas = [...new Set((state?.claims ?? []).map((c) => c.namespace))].sort();
  return {
    id: 'delete',
    key: JSON.stringify([areas, state?.profile_id ?? null]),
    build: () => {
      const el = h(
        'section',
        { id: 'delete', 'aria-labelledby': 'delete-h' },
        h('h2', { id: 'delete-h', tabindex: '-1' }, 'Delete'),
      );
      if (state?.profile_id == null) {
        el.append(h('p', { class: 'muted' }, 'Nothing is stored about you.'));
        return el;
      }
      el.append(
        h(
          'p',
          {},
          'Deleting cannot be undone. Apps you allowed keep their access until it ends or you end it, but they find nothing in what you delete.',
        ),
      );
      const list = h('ul', { class: 'plain-list' });
      for (const area of areas) {
        list.append(
          h(
            'li',
            {},
            stepButton(
              `delete-${area}`,
              `Delete my ${areaTitle(area).toLowerCase()}…`,
              `Delete all your ${areaTitle(area).toLowerCase()}? This cannot be undone.`,
              'Yes, delete them',
              () =>
                ctx.act(
                  'delete_namespace',
                  { namespace: area },
                  `Your ${areaTitle(area).toLowerCase()} were deleted.`,
                ),
            ),
          ),
        );
      }
      el.append(list);
      el.append(
        h(
          'div',
          { class: 'actions' },
          stepButton(
            'delete-all',
            'Delete my whole profile…',
            'Delete everything stored about you? This cannot be undone.',
            'Yes, delete everything',
            () => ctx.act('delete_profile', {}, 'Your profile was deleted.'),
          ),
        ),
      );
      return el;
    },
  };
}

function stepButton(
  id: string,
  label: string,
  question: string,
  yes: string,
  run: () => Promise<unknown>,
): HTMLElement {
  const wrap = h('div', { class: 'step' });
  const button = h('button', { type: 'button', class: 'danger', id }, label);
  button.addEventListener('click', () => {
    button.hidden = true;
    const step = confirmStep({
      question,
      yes,
      no: 'Cancel',
      onYes: async () => {
        await run();
      },
      onNo: () => {
        step.remove();
        button.hidden = false;
        button.focus();
      },
    });
    wrap.append(step);
  });
  wrap.append(button);
  return wrap;
}
