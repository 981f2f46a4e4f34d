import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditAction, AuditEvent } from '../../../src/model/audit-event.ts';
import { ACCESS_ACTIONS, accessModel } from '../../../web/app/src/plots/access.ts';
import { accessOverTime } from '../../../web/app/src/plots/index.ts';
import { GRAPHIC_COLOURS, TEXT_COLOURS } from '../../../web/app/src/plots/palette.ts';
import {
  assertAccessibleFigure,
  barTitles,
  contrastWithWhite,
  part,
  tableRows,
  textOf,
  wellFormed,
} from './plots-support.ts';

// "Who looked at your profile" (web/app/src/plots/access.ts): reads per day per app over the
// last days, as a chart and as a table that say the same numbers.

const NOW = new Date('2026-12-01T19:00:00Z');
let n = 0;

function read(
  app: string,
  at: string,
  action: AuditAction = 'query',
  more: Partial<Pick<AuditEvent, 'actor' | 'outcome' | 'grant_id'>> = {},
): AuditEvent {
  n += 1;
  return {
    event_id: `ppx:event:e${n}`,
    at,
    subject_id: 'ppx:profile:p1',
    actor: { kind: 'grantee', id: app },
    action,
    claim_keys: ['fragrance.family_preference'],
    outcome: 'ok',
    ...more,
  };
}

const NAMES = { 'client-shop': 'Scent Shop', 'client-trip': 'Trip Planner', 'client-news': 'Daily News' };

const SAMPLE: AuditEvent[] = [
  read('client-shop', '2026-12-01T08:00:00Z'),
  read('client-shop', '2026-12-01T18:59:00Z', 'summary'),
  read('client-shop', '2026-11-28T12:00:00Z', 'effective'),
  read('client-trip', '2026-11-28T00:00:00Z', 'export'),
  read('client-trip', '2026-11-02T00:00:00Z', 'derived_view'),
  read('client-news', '2026-11-15T23:59:59Z', 'read'),
];

/** The table's body rows by day name, as numbers. */
function byDay(html: string): Map<string, number[]> {
  const rows = tableRows(html);
  return new Map(rows.slice(1, -1).map(([day = '', ...cells]) => [day, cells.map(Number)]));
}

describe('accessOverTime', () => {
  it('counts the reads of each app on each day, the busiest app first', () => {
    const html = accessOverTime(SAMPLE, { now: NOW, appNames: NAMES, idPrefix: 'acc' });
    const rows = tableRows(html);
    assert.deepEqual(rows[0], ['Day', 'Scent Shop', 'Trip Planner', 'Daily News', 'All apps']);
    assert.deepEqual(
      [...byDay(html)],
      [
        ['2 Nov', [0, 1, 0, 1]],
        ['15 Nov', [0, 0, 1, 1]],
        ['28 Nov', [1, 1, 0, 2]],
        ['1 Dec', [2, 0, 0, 2]],
      ],
    );
    assert.deepEqual(rows.at(-1), ['All 30 days', '3', '2', '1', '6']);
    assert.equal(
      textOf(part(html, 'desc')),
      '3 apps read your profile 6 times in the last 30 days, on 4 of those days; Scent Shop read it most (3 times).',
    );
    assert.match(
      textOf(part(html, 'figcaption')),
      /^Who looked at your profile in the last 30 days \(2 Nov to 1 Dec 2026\)$/,
    );
  });

  it('draws the same numbers as the table: one bar per app and day with reads, named in words', () => {
    const html = accessOverTime(SAMPLE, { now: NOW, appNames: NAMES, idPrefix: 'acc' });
    assert.deepEqual(barTitles(html).sort(), [
      'Daily News: 1 read on 15 Nov',
      'Scent Shop: 1 read on 28 Nov',
      'Scent Shop: 2 reads on 1 Dec',
      'Trip Planner: 1 read on 2 Nov',
      'Trip Planner: 1 read on 28 Nov',
    ]);
    const fromBars = new Map<string, number>();
    for (const t of barTitles(html)) {
      const m = /^(.*): (\d+) reads? on (.*)$/.exec(t);
      assert.ok(m);
      fromBars.set(`${m[1]}|${m[3]}`, Number(m[2]));
    }
    const head = tableRows(html)[0]?.slice(1, -1) ?? [];
    for (const [day, cells] of byDay(html)) {
      head.forEach((app, i) => {
        assert.equal(fromBars.get(`${app}|${day}`) ?? 0, cells[i], `${app} on ${day}`);
      });
    }
    // Each app's row is labelled directly with its name and total, so colour is not the cue.
    const labels = [...part(html, 'svg').matchAll(/class="ppx-plot-label"[^>]*>([^<]*)</g)].map((m) => m[1]);
    assert.deepEqual(labels, ['Scent Shop: 3 reads', 'Trip Planner: 2 reads', 'Daily News: 1 read']);
    // A long name is cut to fit the width; its count stays.
    const long = accessOverTime([read('client-x', '2026-12-01T08:00:00Z')], {
      now: NOW,
      appNames: { 'client-x': 'A really long application name '.repeat(4) },
    });
    const [label = ''] = [...long.matchAll(/class="ppx-plot-label"[^>]*>([^<]*)</g)].map((m) => m[1]);
    assert.match(label, /…: 1 read$/);
    assert.ok(label.length * 12 * 0.56 <= 360, label);
  });

  it('leaves days without reads empty: no bar, no table row, but the baseline and the days named', () => {
    const html = accessOverTime(SAMPLE, { now: NOW, appNames: NAMES, idPrefix: 'acc' });
    const model = accessModel(SAMPLE, { now: NOW });
    assert.equal(model.dayStarts.length, 30);
    const empty = model.dayStarts.filter((_, i) => model.series.every((s) => s.perDay[i] === 0)).length;
    assert.equal(empty, 26);
    assert.equal(byDay(html).size, 4);
    assert.match(part(html, 'caption'), /Days without reads are left out\./);
    assert.equal((html.match(/class="ppx-plot-baseline"/g) ?? []).length, 3, 'a baseline per app');
    const axis = [...html.matchAll(/class="ppx-plot-axis"[^>]*>([^<]*)</g)].map((m) => m[1]);
    assert.equal(axis[0], '2 Nov');
    assert.equal(axis.at(-1), '1 Dec');
  });

  it('counts only answered reads by apps, within the window, by UTC day', () => {
    const noise: AuditEvent[] = [
      read('client-shop', '2026-12-01T09:00:00Z', 'query', { outcome: 'denied' }),
      read('client-shop', '2026-12-01T09:00:00Z', 'denied', { outcome: 'denied' }),
      read('client-shop', '2026-12-01T09:00:00Z', 'list_grants'),
      read('client-shop', '2026-12-01T09:00:00Z', 'token_issued'),
      read('client-shop', '2026-12-01T09:00:00Z', 'proposal_created'),
      read('client-shop', '2026-12-01T09:00:00Z', 'cross_domain_review_requested'),
      read('ppx:profile:p1', '2026-12-01T09:00:00Z', 'export', {
        actor: { kind: 'subject', id: 'ppx:profile:p1' },
      }),
      read('ops', '2026-12-01T09:00:00Z', 'read', { actor: { kind: 'operator', id: 'ops' } }),
      read('client-shop', '2026-11-01T23:59:59Z'), // the day before the first day shown
      read('client-shop', '2026-12-02T00:00:00Z'), // tomorrow
    ];
    assert.equal(accessModel(noise, { now: NOW }).total, 0);
    // 23:30 at UTC-2 on 30 Nov is 1:30 on 1 Dec in UTC.
    const late = accessModel([read('client-shop', '2026-11-30T23:30:00-02:00')], { now: NOW });
    assert.deepEqual(late.series[0]?.perDay.slice(-2), [0, 1]);
    assert.deepEqual(
      [...ACCESS_ACTIONS].sort(),
      ['derived_view', 'effective', 'export', 'query', 'read', 'summary'],
      'the kinds counted (docs/web-app-plots.md)',
    );
  });

  it('names an app by its client id or its grant id, and falls back to the id', () => {
    const events = [
      read('client-a', '2026-12-01T08:00:00Z', 'query', { grant_id: 'ppx:grant:g1' }),
      read('client-b', '2026-12-01T08:00:00Z'),
      read('client-b', '2026-12-01T09:00:00Z'),
    ];
    const model = accessModel(events, { now: NOW, appNames: { 'ppx:grant:g1': 'Granted App' } });
    assert.deepEqual(
      model.series.map((s) => [s.name, s.total]),
      [
        ['client-b', 2],
        ['Granted App', 1],
      ],
    );
  });

  it('stays legible with many apps: the five busiest, then "Other apps" with the rest named', () => {
    const events = Array.from({ length: 9 }, (_, i) =>
      Array.from({ length: 9 - i }, (_, j) =>
        read(`app-${i}`, `2026-11-${String(20 + (j % 10)).padStart(2, '0')}T10:00:00Z`),
      ),
    ).flat();
    const names = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`app-${i}`, `App number ${i}`]));
    const html = accessOverTime(events, { now: NOW, appNames: names, idPrefix: 'many' });
    const head = tableRows(html)[0];
    assert.deepEqual(head, [
      'Day',
      'App number 0',
      'App number 1',
      'App number 2',
      'App number 3',
      'App number 4',
      'Other apps (4)',
      'All apps',
    ]);
    assert.deepEqual(tableRows(html).at(-1), ['All 30 days', '9', '8', '7', '6', '5', '10', '45']);
    assert.match(
      textOf(html),
      /Other apps \(4\): App number 5, App number 6, App number 7 and App number 8\./,
    );
    assert.equal((html.match(/class="ppx-plot-baseline"/g) ?? []).length, 6, 'six rows, not nine');
    assert.match(textOf(part(html, 'desc')), /^9 apps read your profile 45 times/);
    // Six apps fit without folding: "Other apps" never holds a single app.
    const six = accessModel(
      events.filter((e) => Number(e.actor.id.slice(4)) < 6),
      { now: NOW },
    );
    assert.equal(six.series.length, 6);
    assert.ok(six.series.every((s) => s.members.length === 0));
  });

  it('says so in words when no app has read the profile', () => {
    const html = accessOverTime([], { now: NOW, idPrefix: 'none' });
    wellFormed(html);
    assert.match(textOf(html), /No app has read your profile in the last 30 days\./);
    assert.doesNotMatch(html, /<svg|<table/);
    const week = accessOverTime([read('client-shop', '2026-11-20T10:00:00Z')], { now: NOW, days: 7 });
    assert.match(textOf(week), /No app has read your profile in the last 7 days\. ?$/);
    assert.match(textOf(week), /\(25 Nov to 1 Dec 2026\)/);
  });

  it('escapes every piece of text, a hostile app name included', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    for (const events of [
      [read('client-x', '2026-12-01T08:00:00Z')],
      [read(hostile, '2026-12-01T08:00:00Z')],
      [read('"><script>alert(1)</script>', '2026-12-01T08:00:00Z')],
    ]) {
      const html = accessOverTime(events, { now: NOW, appNames: { 'client-x': hostile }, idPrefix: 'x' });
      assert.doesNotMatch(html, /<img|<script/i);
      for (const t of wellFormed(html)) assert.ok(!('onerror' in t.attrs) && !('src' in t.attrs), t.name);
    }
    const html = accessOverTime([read('client-x', '2026-12-01T08:00:00Z')], {
      now: NOW,
      appNames: { 'client-x': hostile },
    });
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.equal(tableRows(html)[0]?.[1], hostile, 'shown as the text it is');
    // An id prefix cannot break out of its attribute either.
    const odd = accessOverTime(SAMPLE, { now: NOW, idPrefix: '"><b onclick=x>' });
    assert.ok(wellFormed(odd).every((t) => t.name !== 'b' && !('onclick' in t.attrs)));
  });

  it('is an accessible figure: well-formed, labelled, scalable, strict-CSP safe, ids unique per call', () => {
    const html = accessOverTime(SAMPLE, { now: NOW, appNames: NAMES, idPrefix: 'acc' });
    assertAccessibleFigure(html, 'acc');
    const a = accessOverTime(SAMPLE, { now: NOW });
    const b = accessOverTime(SAMPLE, { now: NOW });
    const idsOf = (h: string) => wellFormed(h).flatMap((t) => (t.attrs.id ? [t.attrs.id] : []));
    assert.equal(new Set([...idsOf(a), ...idsOf(b)]).size, idsOf(a).length * 2, 'two calls share no id');
    const prefix = /<figure[^>]* id="([^"]+)"/.exec(a)?.[1] ?? '';
    assertAccessibleFigure(a, prefix);
  });

  it('keeps every mark inside its viewBox, whatever the number of days', () => {
    for (const days of [1, 7, 30, 90, 366, 1000]) {
      const html = accessOverTime(SAMPLE, { now: NOW, days, idPrefix: 'vb' });
      if (!html.includes('<svg')) continue;
      const [, , w = 0, h = 0] = (/viewBox="([^"]+)"/.exec(html)?.[1] ?? '').split(' ').map(Number);
      for (const t of wellFormed(html).filter((t) => t.name !== 'svg')) {
        const x = Number(t.attrs.x ?? 0) + Number(t.attrs.width ?? 0);
        const y = Number(t.attrs.y ?? 0) + Number(t.attrs.height ?? 0);
        assert.ok(x <= w + 0.01 && y <= h + 0.01, `<${t.name}> inside at ${days} days`);
      }
      const labels = [...html.matchAll(/class="ppx-plot-axis"[^>]*>([^<]*)</g)].map((m) => m[1]);
      assert.ok(
        labels.length >= (days === 1 ? 1 : 2) && labels.length <= 7,
        `${labels.length} day names fit`,
      );
    }
    assert.equal(accessModel([], { now: NOW, days: 1000 }).dayStarts.length, 366);
  });

  it('uses plain words and colours with enough contrast', () => {
    const html = textOf(accessOverTime(SAMPLE, { now: NOW, appNames: NAMES }));
    assert.doesNotMatch(html, /\bT\d\d:|Z\b|\bquery\b|\beffective\b|derived_view|grantee|\[0/);
    for (const c of GRAPHIC_COLOURS) assert.ok(contrastWithWhite(c) >= 3, `${c} against white`);
    for (const c of TEXT_COLOURS) assert.ok(contrastWithWhite(c) >= 4.5, `${c} against white`);
  });
});
