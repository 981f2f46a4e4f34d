import assert from 'node:assert/strict';

// Reading the plots' HTML back in tests, without a DOM: a tag tokenizer that checks the markup
// is well formed, and helpers that pull out the table and the chart's bar titles.

export interface Tag {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
}

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*="[^"<>]*")*)\s*(\/?)>/y;
const ATTR = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"/g;
/** HTML elements that never have content (the plots use none but allow them). */
const VOID = new Set(['br', 'hr', 'img', 'input', 'meta', 'link']);

/**
 * Every tag of `html`, in order, after checking that the markup is well formed: each `<` starts
 * a tag, every element closes in order, attributes are quoted, text has no bare `>` or `&`.
 */
export function wellFormed(html: string): Tag[] {
  const tags: Tag[] = [];
  const open: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    const text = html.slice(i, lt < 0 ? html.length : lt);
    assert.doesNotMatch(text, />/, `a bare ">" in text: ${text}`);
    assert.doesNotMatch(text, /&(?!amp;|lt;|gt;|quot;|#39;)/, `an unescaped "&" in text: ${text}`);
    if (lt < 0) break;
    TAG.lastIndex = lt;
    const m = TAG.exec(html);
    assert.ok(m, `not a tag at ${lt}: ${html.slice(lt, lt + 60)}`);
    const [whole, closing, name = '', rawAttrs = '', selfClosing] = m;
    if (closing) {
      assert.equal(open.pop(), name, `</${name}> closes the wrong element`);
    } else {
      const attrs: Record<string, string> = {};
      for (const a of rawAttrs.matchAll(ATTR)) {
        const [, key = '', value = ''] = a;
        assert.equal(attrs[key], undefined, `attribute ${key} twice on <${name}>`);
        attrs[key] = value;
      }
      tags.push({ name, attrs });
      if (!selfClosing && !VOID.has(name)) open.push(name);
    }
    i = lt + whole.length;
  }
  assert.deepEqual(open, [], 'every element is closed');
  return tags;
}

export function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The text of an element's content, tags removed and entities decoded. */
export function textOf(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ''));
}

/** The part of `html` from `<name` to its closing tag (the first such element). */
export function part(html: string, name: string): string {
  const start = html.indexOf(`<${name}`);
  const end = html.indexOf(`</${name}>`);
  assert.ok(start >= 0 && end > start, `no <${name}>`);
  return html.slice(start, end + name.length + 3);
}

/** The table as rows of cell texts: head, body rows, foot, in order. */
export function tableRows(html: string): string[][] {
  const table = part(html, 'table');
  return [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((r) =>
    [...(r[1] ?? '').matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => textOf(c[1] ?? '')),
  );
}

/** The tooltips of the chart's bars or segments (`<rect …><title>…</title></rect>`). */
export function barTitles(html: string): string[] {
  return [...part(html, 'svg').matchAll(/<rect [^>]*><title>(.*?)<\/title><\/rect>/g)].map((m) =>
    decodeEntities(m[1] ?? ''),
  );
}

/** WCAG relative-luminance contrast of a `#rrggbb` colour against white. */
export function contrastWithWhite(hex: string): number {
  const channel = (i: number) => {
    const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (l + 0.05);
}

/** What every plot must satisfy: figure and caption, an SVG named by its title and desc, a table. */
export function assertAccessibleFigure(html: string, prefix: string): Tag[] {
  const tags = wellFormed(html);
  assert.equal(tags[0]?.name, 'figure');
  assert.ok(html.startsWith('<figure') && html.endsWith('</figure>'));
  assert.equal(tags[1]?.name, 'figcaption');
  const svg = tags.find((t) => t.name === 'svg');
  assert.ok(svg, 'an svg');
  assert.equal(svg.attrs.role, 'img');
  assert.equal(svg.attrs['aria-labelledby'], `${prefix}-title`);
  assert.equal(svg.attrs['aria-describedby'], `${prefix}-desc`);
  assert.match(svg.attrs.viewBox ?? '', /^0 0 \d+(\.\d+)? \d+(\.\d+)?$/);
  assert.equal(svg.attrs.width, '100%', 'scales with its container');
  assert.equal(svg.attrs.height, undefined, 'no fixed height');
  assert.ok(tags.find((t) => t.name === 'title' && t.attrs.id === `${prefix}-title`));
  assert.ok(tags.find((t) => t.name === 'desc' && t.attrs.id === `${prefix}-desc`));
  assert.match(textOf(part(html, 'desc')), /^[A-Z0-9].*\.$/, 'the desc is a sentence');
  assert.match(html, /<details class="ppx-plot-details"><summary>Show as a table<\/summary>/);
  assert.ok(
    tags.find((t) => t.name === 'caption'),
    'the table has a caption',
  );
  for (const th of tags.filter((t) => t.name === 'th')) assert.match(th.attrs.scope ?? '', /^(col|row)$/);
  assertStrictCspSafe(tags, prefix);
  return tags;
}

/** No inline style or handler, ids unique and under the prefix, every url(#…) defined. */
export function assertStrictCspSafe(tags: readonly Tag[], prefix: string): void {
  const ids = tags.flatMap((t) => (t.attrs.id === undefined ? [] : [t.attrs.id]));
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  for (const id of ids) assert.ok(id === prefix || id.startsWith(`${prefix}-`), id);
  for (const t of tags) {
    assert.ok(!('style' in t.attrs), `no style attribute on <${t.name}>`);
    assert.ok(!['style', 'script', 'foreignObject'].includes(t.name), `no <${t.name}>`);
    for (const [k, v] of Object.entries(t.attrs)) {
      assert.doesNotMatch(k, /^on/i, `no handler ${k}`);
      for (const ref of v.matchAll(/url\(#([^)]+)\)/g))
        assert.ok(ids.includes(ref[1] ?? ''), `url(#${ref[1]}) is defined`);
    }
  }
}
