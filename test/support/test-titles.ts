// The titles of the tests and suites of a test file, read without running it: the first argument
// of each it(...), describe(...) and test(...) call (also with .skip, .only or .todo), when it is
// a string or template literal. test/requirements.test.ts ties a requirement to such a title, not
// to any text of the file (a comment, an assertion message) that happens to hold the same words.
//
// A small scanner, not the TypeScript parser: `typescript` is there for type-checking only
// (docs/dependencies.md). It knows just enough of the language not to take comments, strings,
// template literals or regular expression literals for code.

/**
 * A title as its literal text. A template literal gives one piece more than it has `${...}`
 * parts, which lie between the pieces; a plain string gives one piece.
 */
export type Title = readonly string[];

const CALLS = new Set(['it', 'describe', 'test']);
const MODIFIERS = new Set(['skip', 'only', 'todo']);

type Token =
  | { readonly kind: 'name' | 'punct'; readonly text: string }
  | { readonly kind: 'string'; readonly pieces: string[] };

/** The titles of `source`, in order. */
export function testTitles(source: string): Title[] {
  const tokens = tokenize(source);
  const titles: Title[] = [];
  const punct = (t: Token | undefined, text: string) => t?.kind === 'punct' && t.text === text;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // `x.test(...)` is a method (RegExp#test), not the test function
    if (t.kind !== 'name' || !CALLS.has(t.text) || punct(tokens[i - 1], '.')) continue;
    let j = i + 1;
    const modifier = tokens[j + 1];
    if (punct(tokens[j], '.') && modifier?.kind === 'name' && MODIFIERS.has(modifier.text)) j += 2;
    const arg = tokens[j + 1];
    // only a title that is one literal: `it('a' + b)` or `it(name)` cannot be read here
    if (
      punct(tokens[j], '(') &&
      arg?.kind === 'string' &&
      (punct(tokens[j + 2], ',') || punct(tokens[j + 2], ')'))
    ) {
      titles.push(arg.pieces);
    }
  }
  return titles;
}

/**
 * Whether `sub` is part of a title. A `${...}` stands for any text, but `sub` must start and end
 * in the title's own words: a template title is matched by what it always says.
 */
export function titleIncludes(title: Title, sub: string): boolean {
  if (title.some((piece) => piece.includes(sub))) return true;
  for (let i = 0; i < title.length - 1; i++) {
    const piece = title[i]!;
    for (let k = 0; k < piece.length; k++) {
      // `sub` starts at piece[k] and runs on into the `${...}` after the piece
      if (!sub.startsWith(piece.slice(k))) continue;
      let rest = sub.slice(piece.length - k);
      for (let j = i + 1; j < title.length; j++) {
        const next = title[j]!;
        // The `${...}` before `next` takes the start of `rest`; `sub` ends inside `next` ...
        for (let q = 0; q < rest.length; q++) if (next.startsWith(rest.slice(q))) return true;
        // ... or runs through all of it: its first occurrence leaves the most for what follows.
        const at = rest.indexOf(next);
        if (at < 0) break;
        rest = rest.slice(at + next.length);
      }
    }
  }
  return false;
}

/** Keywords after which a `/` starts a regular expression (elsewhere after a name, it divides). */
const BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

function tokenize(src: string): Token[] {
  let i = 0;

  function fail(what: string): never {
    throw new Error(`${what} at offset ${i}`);
  }

  function regexAllowed(prev: Token | undefined): boolean {
    if (prev === undefined) return true;
    if (prev.kind === 'string') return false;
    if (prev.kind === 'name') return BEFORE_REGEX.has(prev.text);
    return !(prev.text === ')' || prev.text === ']' || prev.text === '}');
  }

  function skipRegex(): void {
    let inClass = false;
    for (i++; i < src.length; i++) {
      const c = src[i];
      if (c === '\\') i++;
      else if (c === '\n') fail('unterminated regular expression');
      else if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
    }
    for (i++; /[a-z]/.test(src[i] ?? ''); i++);
  }

  function readString(quote: string): string {
    const start = ++i;
    for (; src[i] !== quote; i++) {
      if (i >= src.length || src[i] === '\n') fail('unterminated string');
      if (src[i] === '\\') i++;
    }
    return literalText(src.slice(start, i++));
  }

  function readTemplate(): string[] {
    const pieces: string[] = [];
    let start = ++i;
    for (; src[i] !== '`'; i++) {
      if (i >= src.length) fail('unterminated template literal');
      if (src[i] === '\\') i++;
      else if (src[i] === '$' && src[i + 1] === '{') {
        pieces.push(literalText(src.slice(start, i)));
        i += 2;
        code(true); // its tokens are not the file's: a title inside `${...}` would be no title
        start = i;
        i--;
      }
    }
    pieces.push(literalText(src.slice(start, i++)));
    return pieces;
  }

  /** Tokens up to the end, or up to the `}` that closes a template's `${` (then past it). */
  function code(inTemplate: boolean): Token[] {
    const tokens: Token[] = [];
    let depth = 0;
    while (i < src.length) {
      const c = src[i]!;
      if (/\s/.test(c)) i++;
      else if (c === '/' && src[i + 1] === '/')
        i = src.indexOf('\n', i) < 0 ? src.length : src.indexOf('\n', i);
      else if (c === '/' && src[i + 1] === '*') {
        const end = src.indexOf('*/', i + 2);
        if (end < 0) fail('unterminated comment');
        i = end + 2;
      } else if (c === '/' && regexAllowed(tokens.at(-1))) {
        skipRegex();
        tokens.push({ kind: 'name', text: '/re/' }); // a value: a `/` after it divides
      } else if (c === "'" || c === '"') tokens.push({ kind: 'string', pieces: [readString(c)] });
      else if (c === '`') tokens.push({ kind: 'string', pieces: readTemplate() });
      else if (/[\w$#]/.test(c)) {
        const name = /^[\w$#]+/.exec(src.slice(i, i + 200))![0];
        tokens.push({ kind: 'name', text: name });
        i += name.length;
      } else {
        if (c === '{') depth++;
        if (c === '}') {
          if (inTemplate && depth === 0) {
            i++;
            return tokens;
          }
          depth--;
        }
        tokens.push({ kind: 'punct', text: c });
        i++;
      }
    }
    if (inTemplate) fail('unterminated ${ in a template literal');
    return tokens;
  }

  return code(false);
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

/** The text a string or template literal's source stands for. */
function literalText(raw: string): string {
  return raw.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])/g, (_, e: string) => {
    if (e.length > 1 && (e[0] === 'u' || e[0] === 'x')) {
      return String.fromCodePoint(Number.parseInt(e.replace(/[ux{}]/g, ''), 16));
    }
    if (/^[\r\n\u2028\u2029]/.test(e)) return ''; // a line continuation
    return ESCAPES[e] ?? e;
  });
}
