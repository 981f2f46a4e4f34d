import { dayWords, listWords, relativeWords } from '../../../src/surfaces/shared/a2ui/words.ts';
import { keyWords, namespaceWords } from '../../../src/surfaces/shared/describe.ts';

// Words the page adds to the shared ones (surfaces/shared/describe.ts, a2ui/words.ts).

export { dayWords, listWords, relativeWords };

/** "Fragrance preferences" for a namespace; core claims are about the person in general. */
export function areaTitle(namespace: string): string {
  return namespaceWords(namespace).title;
}

/**
 * "12 March 2027 at 14:05", in the person's own time zone: the one format of an instant on the
 * page, its date written as dayWords writes a day ("12 March 2027").
 */
const TIME = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short' });
export function timeWords(iso: string): string {
  return TIME.format(new Date(iso));
}

/** "Trying new things and Oud" for the keys an entry names; "" when none. */
export function keysWords(keys: readonly string[]): string {
  if (keys.length === 0) return '';
  const names = keys.slice(0, 6).map((k) => keyWords(k).name);
  return keys.length > 6 ? `${names.join(', ')} and ${keys.length - 6} more` : listWords(names);
}
