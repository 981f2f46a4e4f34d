import { profileDiffView } from '../../../../src/surfaces/shared/a2ui/index.ts';
import type { AppContext, Section, View } from '../context.ts';
import { h } from '../dom.ts';

// How the profile changed over a span the person picks (diff_profile, drawn as ProfileDiffView).

export const historyView: View = {
  path: '/app/history',
  title: 'Changes over time',
  label: 'Changes',
  sections: (ctx) => [historySection(ctx)],
};

const SPANS = [
  ['1', 'the last day'],
  ['7', 'the last week'],
  ['30', 'the last month'],
  ['365', 'the last year'],
] as const;

let span = '30';
type Diff = Parameters<typeof profileDiffView>[0];
type DiffOutput = Omit<Diff, 'diff'> & Diff['diff'];
let shown: { span: string; seq: number; diff: Diff | undefined; error?: string } | undefined;
let loading = false;

function historySection(ctx: AppContext): Section {
  const seq = ctx.state()?.seq ?? -1;
  if ((shown?.span !== span || shown.seq !== seq) && !loading && ctx.state() !== undefined)
    void load(ctx, seq);
  return {
    id: 'history',
    key: JSON.stringify([span, shown]),
    build: () => {
      const select = h('select', { id: 'history-span' });
      for (const [value, words] of SPANS) {
        const o = h('option', { value }, words);
        o.selected = value === span;
        select.append(o);
      }
      select.addEventListener('change', () => {
        span = select.value;
        ctx.redraw();
      });
      const el = h(
        'section',
        { id: 'history', 'aria-labelledby': 'history-h' },
        h('h2', { id: 'history-h', tabindex: '-1' }, 'What changed in your profile'),
        h('div', { class: 'field' }, h('label', { for: 'history-span' }, 'Show changes over'), select),
      );
      if (shown?.error) el.append(h('p', { class: 'error', role: 'alert' }, shown.error));
      else if (!shown?.diff) el.append(h('p', { class: 'muted' }, 'Loading…'));
      else el.append(ctx.surface(profileDiffView(shown.diff), () => undefined));
      return el;
    },
  };
}

async function load(ctx: AppContext, seq: number): Promise<void> {
  loading = true;
  const want = span;
  const from = new Date(ctx.now().getTime() - Number(want) * 86_400_000).toISOString();
  try {
    const out = (await ctx.act('diff_profile', { from })) as DiffOutput | undefined;
    const diff = out && {
      profile_id: out.profile_id,
      from: out.from,
      to: out.to,
      diff: { added: out.added, changed: out.changed, removed: out.removed },
    };
    shown = diff
      ? { span: want, seq, diff }
      : { span: want, seq, diff: undefined, error: 'The changes could not be shown. Try again in a moment.' };
  } finally {
    loading = false;
  }
  ctx.redraw();
}
