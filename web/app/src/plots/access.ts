import type { AuditAction, AuditEvent } from '../../../../src/model/audit-event.ts';
import { listWords } from '../../../../src/surfaces/shared/a2ui/words.ts';
import {
  countWords,
  esc,
  fitLines,
  idPrefixOf,
  num,
  shortDay,
  shortDayYear,
  svgText,
  tableDetails,
} from './html.ts';
import { APP_BAR, BASELINE, INK, MUTED, OTHER_BAR } from './palette.ts';

// "Who looked at your profile": reads of the profile per day over the last days, one small
// chart per app (small multiples on one shared scale), each named in words above its bars.

/**
 * The audit actions that are an app looking at the profile (docs/audit.md, "Actions and who
 * writes them"): every read of claims, whatever its form. Not counted: refused attempts
 * (`denied`), reads of the grant list or the log, token traffic, proposals and the person's own
 * changes, which show no preference to anyone.
 */
export const ACCESS_ACTIONS: ReadonlySet<AuditAction> = new Set<AuditAction>([
  'read',
  'query',
  'effective',
  'summary',
  'export',
  'derived_view',
]);

/** An app (a grantee) looked at the profile and was answered. The person's own reads are not counted. */
function isAccess(event: AuditEvent): boolean {
  return event.actor.kind === 'grantee' && event.outcome === 'ok' && ACCESS_ACTIONS.has(event.action);
}

export interface AccessOptions {
  readonly now: Date;
  /** How many days, today included (UTC); default 30, at most 366. */
  readonly days?: number;
  /** Display names by grantee (client) id, or by grant id. */
  readonly appNames?: Readonly<Record<string, string>>;
  /** Prefix of the ids in the markup; by default a fresh one per call. */
  readonly idPrefix?: string;
}

/** At most this many apps get a chart of their own; the rest share one, "Other apps". */
const MAX_APPS = 5;

const DAY = 86_400_000;

interface AccessSeries {
  readonly name: string;
  /** Reads per day, oldest day first. */
  readonly perDay: readonly number[];
  readonly total: number;
  /** The apps of "Other apps", by name; empty for a single app. */
  readonly members: readonly string[];
}

export interface AccessModel {
  /** Start (UTC midnight, ms) of each day shown, oldest first; the last is today. */
  readonly dayStarts: readonly number[];
  readonly series: readonly AccessSeries[];
  readonly total: number;
}

function clampDays(days: number | undefined): number {
  if (days === undefined || !Number.isFinite(days)) return 30;
  return Math.min(366, Math.max(1, Math.floor(days)));
}

/** The counts behind the chart and the table: per app, per day, the busiest apps first. */
export function accessModel(events: readonly AuditEvent[], options: AccessOptions): AccessModel {
  const days = clampDays(options.days);
  const today = Math.floor(options.now.getTime() / DAY) * DAY;
  const first = today - (days - 1) * DAY;
  const dayStarts = Array.from({ length: days }, (_, i) => first + i * DAY);
  const byApp = new Map<string, { name: string; perDay: number[] }>();
  for (const event of events) {
    const at = Date.parse(event.at);
    if (!isAccess(event) || !(at >= first && at < today + DAY)) continue;
    const name = appName(event, options.appNames);
    const app = byApp.get(event.actor.id) ?? { name, perDay: new Array<number>(days).fill(0) };
    byApp.set(event.actor.id, app);
    const i = Math.floor((at - first) / DAY);
    app.perDay[i] = (app.perDay[i] ?? 0) + 1;
  }
  const apps: AccessSeries[] = [...byApp.values()]
    .map((a) => ({ name: a.name, perDay: a.perDay, total: sum(a.perDay), members: [] }))
    .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  const series =
    apps.length <= MAX_APPS + 1 ? apps : [...apps.slice(0, MAX_APPS), other(apps.slice(MAX_APPS))];
  return { dayStarts, series, total: sum(series.map((s) => s.total)) };
}

function appName(event: AuditEvent, names: Readonly<Record<string, string>> | undefined): string {
  const given =
    names?.[event.actor.id] ?? (event.grant_id === undefined ? undefined : names?.[event.grant_id]);
  return given?.trim() || event.actor.id;
}

function other(rest: readonly AccessSeries[]): AccessSeries {
  const perDay = rest[0]?.perDay.map((_, i) => sum(rest.map((s) => s.perDay[i] ?? 0))) ?? [];
  return {
    name: `Other apps (${rest.length})`,
    perDay,
    total: sum(perDay),
    members: rest.map((s) => s.name),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** "in the last 30 days", or "today" for one day. */
function periodWords(days: number): string {
  return days === 1 ? 'today' : `in the last ${days} days`;
}

function timesWords(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}

/** The sentence that sums the chart up (the SVG's `<desc>`). */
function summary(model: AccessModel): string {
  const days = model.dayStarts.length;
  const active = model.dayStarts.filter((_, i) => model.series.some((s) => (s.perDay[i] ?? 0) > 0)).length;
  const apps = model.series.reduce((n, s) => n + Math.max(1, s.members.length), 0);
  const top = model.series[0];
  const who = apps === 1 && top ? top.name : `${apps} apps`;
  const when = days === 1 ? '' : `, on ${active} of those days`;
  const most =
    apps > 1 && top && top.members.length === 0
      ? `; ${top.name} read it most (${timesWords(top.total)})`
      : '';
  return `${who} read your profile ${timesWords(model.total)} ${periodWords(days)}${when}${most}.`;
}

function rangeWords(model: AccessModel): string {
  const first = model.dayStarts[0] ?? 0;
  const last = model.dayStarts[model.dayStarts.length - 1] ?? 0;
  return model.dayStarts.length === 1 ? shortDayYear(last) : `${shortDay(first)} to ${shortDayYear(last)}`;
}

const WIDTH = 360;
const LABEL = 13;
const BARS = 32;
const ROW = LABEL + 6 + BARS + 14;
const TOP = 22;

/** The chart: one row per app, a bar per day on one scale for all rows, days named below. */
function chart(
  model: AccessModel,
  ids: { title: string; desc: string },
  title: string,
  desc: string,
): string {
  const days = model.dayStarts.length;
  const slot = WIDTH / days;
  const barWidth = Math.min(slot, Math.max(1, slot * 0.75));
  const peak = Math.max(1, ...model.series.flatMap((s) => s.perDay));
  const height = TOP + model.series.length * ROW + 16;
  const parts: string[] = [
    svgText(
      0,
      13,
      `Each bar is a day. The tallest is ${countWords(peak, 'read', 'reads')}.`,
      `class="ppx-plot-note" font-size="12" fill="${MUTED}"`,
    ),
  ];
  model.series.forEach((s, row) => {
    const y = TOP + row * ROW;
    // A long name is cut, never its count.
    const count = `: ${countWords(s.total, 'read', 'reads')}`;
    const label = `${fitLines(s.name, WIDTH - count.length * LABEL * 0.56, LABEL, 1)[0] ?? ''}${count}`;
    parts.push(svgText(0, y + LABEL, label, `class="ppx-plot-label" font-size="${LABEL}" fill="${INK}"`));
    const base = y + LABEL + 6 + BARS;
    parts.push(
      `<line class="ppx-plot-baseline" x1="0" x2="${WIDTH}" y1="${num(base)}" y2="${num(base)}" stroke="${BASELINE}" stroke-width="1"/>`,
    );
    const fill = s.members.length > 0 ? OTHER_BAR : APP_BAR;
    s.perDay.forEach((count, i) => {
      if (count === 0) return;
      const h = Math.max(2, (count / peak) * BARS);
      const day = model.dayStarts[i] ?? 0;
      parts.push(
        `<rect class="ppx-plot-bar" x="${num(i * slot + (slot - barWidth) / 2)}" y="${num(base - h)}" width="${num(barWidth)}" height="${num(h)}" fill="${fill}"><title>${esc(`${s.name}: ${countWords(count, 'read', 'reads')} on ${shortDay(day)}`)}</title></rect>`,
      );
    });
  });
  parts.push(axis(model, TOP + model.series.length * ROW + 10, slot));
  return (
    `<svg class="ppx-plot-svg" role="img" aria-labelledby="${ids.title}" aria-describedby="${ids.desc}" viewBox="0 0 ${WIDTH} ${num(height)}" width="100%" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${ids.title}">${esc(title)}</title><desc id="${ids.desc}">${esc(desc)}</desc>${parts.join('')}</svg>`
  );
}

/** Day names under the rows: the first and last day, and days in between where they fit. */
function axis(model: AccessModel, y: number, slot: number): string {
  const days = model.dayStarts.length;
  const step = Math.max(1, Math.ceil(64 / slot));
  const marks = new Set<number>([0, days - 1]);
  for (let i = step; i < days - 1; i += step) if ((days - 1 - i) * slot >= 48) marks.add(i);
  return [...marks]
    .sort((a, b) => a - b)
    .map((i) => {
      const anchor = i === 0 ? 'start' : i === days - 1 ? 'end' : 'middle';
      const x = i === 0 ? 0 : i === days - 1 ? WIDTH : i * slot + slot / 2;
      return svgText(
        x,
        y,
        shortDay(model.dayStarts[i] ?? 0),
        `class="ppx-plot-axis" font-size="11" fill="${MUTED}" text-anchor="${anchor}"`,
      );
    })
    .join('');
}

/** The same numbers as a table: a row per day with reads (others are left out), totals last. */
function table(model: AccessModel, caption: string): string {
  const head = model.series.map((s) => `<th scope="col">${esc(s.name)}</th>`).join('');
  const rows = model.dayStarts
    .map((day, i) => ({ day, counts: model.series.map((s) => s.perDay[i] ?? 0) }))
    .filter((r) => sum(r.counts) > 0)
    .map(
      (r) =>
        `<tr><th scope="row">${esc(shortDay(r.day))}</th>${r.counts.map((c) => `<td>${c}</td>`).join('')}<td>${sum(r.counts)}</td></tr>`,
    )
    .join('');
  const totals = model.series.map((s) => `<td>${s.total}</td>`).join('');
  const days = model.dayStarts.length;
  return (
    `<table class="ppx-plot-table"><caption>${esc(caption)}</caption>` +
    `<thead><tr><th scope="col">Day</th>${head}<th scope="col">All apps</th></tr></thead>` +
    `<tbody>${rows}</tbody>` +
    `<tfoot><tr><th scope="row">${days === 1 ? 'Today' : `All ${days} days`}</th>${totals}<td>${model.total}</td></tr></tfoot></table>`
  );
}

function others(model: AccessModel): string {
  const group = model.series.find((s) => s.members.length > 0);
  return group ? `<p class="ppx-plot-note">${esc(`${group.name}: ${listWords(group.members)}.`)}</p>` : '';
}

/** "Who looked at your profile": the figure, its chart, and the chart as a table. */
export function accessOverTime(events: readonly AuditEvent[], options: AccessOptions): string {
  const model = accessModel(events, options);
  const days = model.dayStarts.length;
  const prefix = idPrefixOf(options.idPrefix, 'access');
  const caption = `Who looked at your profile`;
  const period = `${periodWords(days)} (${rangeWords(model)})`;
  const figcaption = `<figcaption>${esc(caption)} <span class="ppx-plot-sub">${esc(period)}</span></figcaption>`;
  if (model.total === 0) {
    return `<figure class="ppx-plot ppx-plot-empty" id="${prefix}">${figcaption}<p class="ppx-plot-empty-words">${esc(`No app has read your profile ${periodWords(days)}.`)}</p></figure>`;
  }
  const title = `Reads of your profile per day, by app, ${rangeWords(model)}`;
  const ids = { title: `${prefix}-title`, desc: `${prefix}-desc` };
  const tableCaption = `${title}. Days without reads are left out.`;
  return (
    `<figure class="ppx-plot ppx-plot-access" id="${prefix}">${figcaption}` +
    chart(model, ids, title, summary(model)) +
    tableDetails(table(model, tableCaption) + others(model)) +
    `</figure>`
  );
}
