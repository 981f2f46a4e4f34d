import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { REQUIREMENTS } from './requirements.ts';
import { type Title, testTitles, titleIncludes } from './support/test-titles.ts';

const ROOT = new URL('../', import.meta.url);

// A mapping names a test or suite title, so only titles count: the same words in a comment or
// an assertion message would survive the test's renaming or deletion.
const titlesOf = new Map<string, Title[]>();
function titles(url: URL): Title[] {
  const found = titlesOf.get(url.href) ?? testTitles(readFileSync(url, 'utf8'));
  titlesOf.set(url.href, found);
  return found;
}

describe('every requirement is verified by a test that exists', () => {
  it('ids are unique', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    assert.deepEqual([...new Set(ids)], ids);
  });

  for (const req of REQUIREMENTS) {
    it(`${req.id} (${req.source})`, () => {
      assert.ok(req.tests.length > 0, `${req.id} has no test`);
      for (const [file, title] of req.tests) {
        const url = new URL(file, ROOT);
        assert.ok(existsSync(url), `${req.id}: ${file} does not exist`);
        assert.ok(
          titles(url).some((t) => titleIncludes(t, title)),
          `${req.id}: no test or suite title with "${title}" in ${file}`,
        );
      }
    });
  }
});

describe('test titles, as the check above reads them', () => {
  it('only the first argument of it, describe and test: not comments, strings or messages', () => {
    const source = [
      "// it('in a line comment')",
      "/* describe('in a block comment') */",
      'const s = \'it("in a string")\';',
      "it('a test', () => { assert.ok(x, 'an assertion message'); });",
      'describe.skip("a skipped suite", () => {});',
      "test.only('with an \\'escaped\\' quote\\u0021', () => {});",
      "/it\\('x'|`/.test('a method, not a title'); it(name, () => {}); it('a' + b, () => {});",
      "it.todo('after a regular expression with a quote and a backtick');",
    ].join('\n');
    assert.deepEqual(testTitles(source), [
      ['a test'],
      ['a skipped suite'],
      ["with an 'escaped' quote!"],
      ['after a regular expression with a quote and a backtick'],
    ]);
  });

  it('a template title is its literal pieces, whatever its placeholders hold', () => {
    // a call inside a placeholder is part of the title's value, not a title of its own
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal
    const source = "it(`${it('inner')} is 400 ${`nested ${`deeper`}`} invalid_request`, () => {});";
    assert.deepEqual(testTitles(source), [['', ' is 400 ', ' invalid_request']]);
  });

  it("a placeholder matches any text, but a mapping starts and ends in the title's own words", () => {
    const title = ['a child ', ' gives package_child_inactive, as a tool result'];
    for (const sub of [
      'gives package_child_inactive',
      'a child x1 gives package_child_inactive',
      'child  gives package',
      'a child ',
    ]) {
      assert.ok(titleIncludes(title, sub), sub);
    }
    for (const sub of [
      // starts inside the placeholder: only what it holds could make these true
      'another port gives package_child_inactive',
      // ends inside it ("a child gives gives ..." is an instance, but not by the title's words)
      'a child gives',
      'gives package_child_inactive, as a tool result, for every tool',
      'a child x1 takes package_child_inactive',
    ]) {
      assert.ok(!titleIncludes(title, sub), sub);
    }
    assert.ok(titleIncludes(['', ': a ', ' outside the grant is 403'], ': a key outside the grant'));
  });
});
