import { withoutBidiControls } from '../../../src/model/shown-text.ts';
import { ActionError, type Explainable, explain } from './actions.ts';
import { h } from './dom.ts';

// "Explain this" under a card: asks the stream to explain the claim, proposal or grant in words
// and shows the answer below the button (kept for as long as the thing explained is unchanged).

const answers = new Map<string, string>();

export function explainButton(csrf: string, what: Explainable, version: string): HTMLElement {
  const id = Object.values(what)[0] as string;
  const key = `${id}|${version}`;
  const answerId = `explain-${id.replace(/[^A-Za-z0-9-]/g, '_')}`;
  const answer = h('p', { class: 'explanation', id: answerId, 'aria-live': 'polite' });
  const button = h(
    'button',
    { type: 'button', class: 'quiet', 'aria-controls': answerId, 'aria-expanded': 'false' },
    'Explain this',
  );
  const show = (words: string) => {
    answer.textContent = withoutBidiControls(words);
    button.setAttribute('aria-expanded', 'true');
  };
  const known = answers.get(key);
  if (known !== undefined) show(known);
  button.addEventListener('click', async () => {
    if (button.getAttribute('aria-expanded') === 'true') {
      answer.textContent = '';
      button.setAttribute('aria-expanded', 'false');
      answers.delete(key);
      return;
    }
    button.disabled = true;
    try {
      const words = await explain(csrf, what);
      answers.set(key, words);
      show(words);
    } catch (e) {
      show(e instanceof ActionError ? e.message : 'The explanation could not be shown.');
    } finally {
      button.disabled = false;
    }
  });
  return h('div', { class: 'explain' }, button, answer);
}
