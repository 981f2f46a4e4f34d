import type { Claim } from '../../../../src/model/claim.ts';
import { confidenceWords, isStated } from '../../../../src/surfaces/shared/a2ui/words.ts';
import { namespaceWords } from '../../../../src/surfaces/shared/describe.ts';
import { countWords, esc, fitLines, idPrefixOf, num, svgText, tableDetails } from './html.ts';
import { BAND_FILLS, INK, MUTED, NOT_STATED, STATED } from './palette.ts';

// "How your preferences were made": per area, how many the person said themselves and how many
// were worked out for them, and how sure each is, in the words of the claim cards
// (a2ui/words.ts: isStated, confidenceWords), so the chart and the cards never disagree.

/** The confidence bands, surest first, in the words confidenceWords gives (without its percentage). */
export const BANDS = ['very sure', 'quite sure', 'fairly sure', 'not very sure'] as const;
export type Band = (typeof BANDS)[number];

/** The band of a confidence: confidenceWords' words, so its thresholds stay the only ones. */
export function bandOf(confidence: number): Band {
  const words = confidenceWords(confidence).replace(/\s*\(\d+%\)$/, '');
  const band = BANDS.find((b) => b === words);
  // A band confidenceWords gained later is counted as the least sure until it is named here.
  return band ?? 'not very sure';
}

export interface AreaMix {
  readonly namespace: string;
  /** The area in words (describe.ts#namespaceWords). */
  readonly title: string;
  readonly total: number;
  readonly stated: number;
  readonly notStated: number;
  /** Counts per band, in the order of BANDS. */
  readonly bands: readonly number[];
}

/** The counts behind the chart and the table: one entry per area, general traits first. */
export function confidenceModel(claims: readonly Claim[]): AreaMix[] {
  const byArea = new Map<string, { stated: number; notStated: number; bands: number[] }>();
  for (const claim of claims) {
    const area = byArea.get(claim.namespace) ?? { stated: 0, notStated: 0, bands: BANDS.map(() => 0) };
    byArea.set(claim.namespace, area);
    if (isStated(claim.source.kind)) area.stated += 1;
    else area.notStated += 1;
    const i = BANDS.indexOf(bandOf(claim.confidence));
    area.bands[i] = (area.bands[i] ?? 0) + 1;
  }
  return [...byArea.entries()]
    .map(([namespace, a]) => ({
      namespace,
      title: namespaceWords(namespace).title,
      total: a.stated + a.notStated,
      stated: a.stated,
      notStated: a.notStated,
      bands: a.bands,
    }))
    .sort(
      (a, b) =>
        Number(b.namespace === 'core') - Number(a.namespace === 'core') || a.title.localeCompare(b.title),
    );
}

export interface ConfidenceOptions {
  /** Prefix of the ids in the markup; by default a fresh one per call. */
  readonly idPrefix?: string;
}

const WIDTH = 360;
const HEAD = 14;
const NOTE = 12;
/** The distance between two lines of notes. */
const NOTE_LINE = 14;
const BAR = 14;

interface Segment {
  readonly count: number;
  readonly fill: string;
  readonly words: string;
}

function whoSegments(area: AreaMix, stripes: string): Segment[] {
  return [
    { count: area.stated, fill: STATED, words: `${area.stated} said by you` },
    { count: area.notStated, fill: `url(#${stripes})`, words: `${area.notStated} not said by you` },
  ];
}

function bandSegments(area: AreaMix, faint: string): Segment[] {
  return BANDS.map((band, i) => ({
    count: area.bands[i] ?? 0,
    fill: i === BANDS.length - 1 ? `url(#${faint})` : (BAND_FILLS[i] ?? INK),
    words: `${area.bands[i] ?? 0} ${band}`,
  }));
}

/** A bar split in proportion to its segments, then the segments named in words below it. */
function splitBar(
  y: number,
  total: number,
  segments: readonly Segment[],
  label: string,
): { svg: string; y: number } {
  const shown = segments.filter((s) => s.count > 0);
  let x = 0;
  const rects = shown.map((s) => {
    const w = (s.count / total) * WIDTH;
    const rect = `<rect class="ppx-plot-segment" x="${num(x)}" y="${num(y)}" width="${num(Math.max(0, w - 1))}" height="${BAR}" fill="${s.fill}"><title>${esc(`${label}: ${s.words}`)}</title></rect>`;
    x += w;
    return rect;
  });
  const lines = fitLines(`${label}: ${shown.map((s) => s.words).join(', ')}`, WIDTH, NOTE, 3);
  const words = lines.map((line, i) =>
    svgText(
      0,
      y + BAR + NOTE_LINE + i * NOTE_LINE,
      line,
      `class="ppx-plot-note" font-size="${NOTE}" fill="${MUTED}"`,
    ),
  );
  return {
    svg: rects.join('') + words.join(''),
    y: y + BAR + NOTE_LINE + (lines.length - 1) * NOTE_LINE + 10,
  };
}

function patterns(stripes: string, faint: string): string {
  const hatch = (id: string, colour: string) =>
    `<pattern id="${id}" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><rect width="3" height="6" fill="${colour}"/></pattern>`;
  return `<defs>${hatch(stripes, NOT_STATED)}${hatch(faint, BAND_FILLS[BANDS.length - 1] ?? MUTED)}</defs>`;
}

/** "Fragrance preferences: 4 preferences" in two lines at most; a long title is cut, never its count. */
function headingLines(area: AreaMix): string[] {
  const count = `: ${countWords(area.total, 'preference', 'preferences')}`;
  // Bold text is about a tenth wider than fitLines reckons.
  const lines = fitLines(area.title, WIDTH * 0.9 - count.length * HEAD * 0.62, HEAD, 2);
  return [...lines.slice(0, -1), `${lines.at(-1) ?? ''}${count}`];
}

function chart(areas: readonly AreaMix[], prefix: string, title: string, desc: string): string {
  const stripes = `${prefix}-stripes`;
  const faint = `${prefix}-faint`;
  const parts: string[] = [patterns(stripes, faint)];
  let y = 0;
  for (const area of areas) {
    for (const line of headingLines(area)) {
      y += HEAD + 3;
      parts.push(
        svgText(0, y, line, `class="ppx-plot-label" font-size="${HEAD}" font-weight="bold" fill="${INK}"`),
      );
    }
    const who = splitBar(y + 6, area.total, whoSegments(area, stripes), 'Who said it');
    const sure = splitBar(who.y, area.total, bandSegments(area, faint), 'How sure');
    parts.push(who.svg, sure.svg);
    y = sure.y + 8;
  }
  const ids = { title: `${prefix}-title`, desc: `${prefix}-desc` };
  return (
    `<svg class="ppx-plot-svg" role="img" aria-labelledby="${ids.title}" aria-describedby="${ids.desc}" viewBox="0 0 ${WIDTH} ${num(y)}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${ids.title}">${esc(title)}</title><desc id="${ids.desc}">${esc(desc)}</desc>${parts.join('')}</svg>`
  );
}

function summary(areas: readonly AreaMix[]): string {
  const total = areas.reduce((n, a) => n + a.total, 0);
  const stated = areas.reduce((n, a) => n + a.stated, 0);
  const sure = areas.reduce((n, a) => n + (a.bands[0] ?? 0) + (a.bands[1] ?? 0), 0);
  const where =
    areas.length === 1 ? `in ${areas[0]?.title ?? ''}` : `in ${countWords(areas.length, 'group', 'groups')}`;
  return (
    `Of your ${countWords(total, 'preference', 'preferences')} ${where}, ` +
    `you said ${stated} yourself and ${total - stated} were worked out for you; ` +
    `${sure} ${sure === 1 ? 'is' : 'are'} quite or very sure.`
  );
}

function table(areas: readonly AreaMix[], caption: string): string {
  const head = [
    'Group',
    'Said by you',
    'Not said by you',
    ...BANDS.map((b) => b.charAt(0).toUpperCase() + b.slice(1)),
  ];
  const rows = areas
    .map(
      (a) =>
        `<tr><th scope="row">${esc(a.title)}</th><td>${a.stated}</td><td>${a.notStated}</td>${a.bands.map((n) => `<td>${n}</td>`).join('')}</tr>`,
    )
    .join('');
  return (
    `<table class="ppx-plot-table"><caption>${esc(caption)}</caption>` +
    `<thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows}</tbody></table>`
  );
}

/** "How your preferences were made": per area, said by you or not, and how sure. */
export function confidenceMix(claims: readonly Claim[], options: ConfidenceOptions = {}): string {
  const prefix = idPrefixOf(options.idPrefix, 'mix');
  const caption = 'Where your preferences come from, and how sure they are';
  const areas = confidenceModel(claims);
  if (areas.length === 0) {
    return `<figure class="ppx-plot ppx-plot-empty" id="${prefix}"><figcaption>${esc(caption)}</figcaption><p class="ppx-plot-empty-words">Your profile has no preferences yet.</p></figure>`;
  }
  const title = 'Preferences per group: said by you or not, and how sure';
  return (
    `<figure class="ppx-plot ppx-plot-mix" id="${prefix}"><figcaption>${esc(caption)}</figcaption>` +
    chart(areas, prefix, title, summary(areas)) +
    tableDetails(
      table(areas, `${title}. Each preference is counted once under who said it and once under how sure.`),
    ) +
    `</figure>`
  );
}
