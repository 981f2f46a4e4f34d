// The small pieces every plot is made of: escaping, ids, text that fits, counts and days in
// words. Pure: no DOM, no clock, so the plots render the same in node tests and in the browser.

import { withoutBidiControls } from '../../../../src/model/shown-text.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML and SVG, in element content and in quoted attributes alike. */
export function esc(text: string): string {
  return withoutBidiControls(text).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

let calls = 0;

/**
 * The prefix of every id one plot uses: the caller's (reduced to letters, digits, `-` and `_`,
 * so it is a valid id and a safe attribute) or a fresh one per call, so two plots on one page
 * never share an id.
 */
export function idPrefixOf(given: string | undefined, kind: string): string {
  const clean = (given ?? '').replace(/[^A-Za-z0-9_-]/g, '');
  if (clean !== '' && /^[A-Za-z]/.test(clean)) return clean;
  calls += 1;
  return `ppx-${kind}-${calls}${clean === '' ? '' : `-${clean}`}`;
}

/** "1 read", "3 reads". */
export function countWords(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

const DAY_MONTH = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const DAY_MONTH_YEAR = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** "1 Dec" (UTC). */
export function shortDay(ms: number): string {
  return DAY_MONTH.format(new Date(ms));
}

/** "1 Dec 2026" (UTC). */
export function shortDayYear(ms: number): string {
  return DAY_MONTH_YEAR.format(new Date(ms));
}

/** About how wide a line of sans-serif text is, in the units of its font size. */
const CHAR_WIDTH = 0.56;

/**
 * Splits text into lines of at most `width` units at `fontSize`, at spaces; at most `maxLines`
 * lines, the last cut with "…" when the text does not fit. A word longer than a line is cut too.
 */
export function fitLines(text: string, width: number, fontSize: number, maxLines: number): string[] {
  const max = Math.max(4, Math.floor(width / (fontSize * CHAR_WIDTH)));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (next.length <= max) {
      line = next;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word;
  }
  if (line !== '') lines.push(line);
  const cut = lines.map((l) => (l.length > max ? `${l.slice(0, max - 1)}…` : l));
  if (cut.length <= maxLines) return cut;
  const last = cut[maxLines - 1] ?? '';
  return [...cut.slice(0, maxLines - 1), `${last.slice(0, max - 1).trimEnd()}…`];
}

/** An SVG `<text>` element; attributes are trusted (numbers and fixed words), the text is escaped. */
export function svgText(x: number, y: number, text: string, attrs: string): string {
  return `<text x="${num(x)}" y="${num(y)}" ${attrs}>${esc(text)}</text>`;
}

/** A coordinate with at most two decimals, so the markup stays short. */
export function num(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** The text alternative: the table folded under "Show as a table". */
export function tableDetails(table: string): string {
  return `<details class="ppx-plot-details"><summary>Show as a table</summary><div class="ppx-plot-table-wrap">${table}</div></details>`;
}
