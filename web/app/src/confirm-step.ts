import { h } from './dom.ts';

// The confirmation step before something that cannot be undone: the question, a button that
// does it and one that does not. Focus goes to the question's first button, and back on "Keep".

export function confirmStep(options: {
  readonly question: string;
  readonly yes: string;
  readonly no: string;
  readonly onYes: () => void | Promise<void>;
  readonly onNo: () => void;
}): HTMLElement {
  const yes = h('button', { type: 'button', class: 'danger' }, options.yes);
  const no = h('button', { type: 'button' }, options.no);
  const box = h(
    'div',
    { class: 'confirm', role: 'group', 'aria-label': options.question },
    h('p', { class: 'confirm-q' }, options.question),
    h('div', { class: 'actions' }, yes, no),
  );
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    no.disabled = true;
    try {
      await options.onYes();
    } finally {
      yes.disabled = false;
      no.disabled = false;
    }
  });
  no.addEventListener('click', () => options.onNo());
  queueMicrotask(() => yes.focus());
  return box;
}
