import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { packCheck } from '../scripts/pack-check.ts';

// Issue 28's "done when" for the package: `npm pack` installs into an empty folder and the
// README's five-minute start runs there with plain Node against `ppx serve --seed-demo`
// (scripts/pack-check.ts, which `npm run check:client-pack` runs too). The start runs on the
// oldest Node the package claims (20) when the machine has one at /usr/bin/node (Debian's), else
// on this one. Needs dist/ (npm test builds it first).

/** Debian's Node when it is older than the one running the tests: the package says Node 20+. */
function olderNode(): string | undefined {
  const debian = '/usr/bin/node';
  if (!existsSync(debian)) return undefined;
  const major = Number(execFileSync(debian, ['--version'], { encoding: 'utf8' }).slice(1).split('.')[0]);
  return major < Number(process.versions.node.split('.')[0]) ? debian : undefined;
}

describe('@ppx-provider/client as a packed tarball', () => {
  it('installs offline into an empty folder, and the README’s five-minute start reads the demo profile', async (t) => {
    const node = olderNode();
    const report = await packCheck(node !== undefined ? { node } : {});
    t.diagnostic(`${report.tarball}, ${report.bytes} bytes, five-minute start on Node ${report.node}`);
    for (const f of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) {
      assert.ok(report.files.includes(f), `${f} is in the tarball`);
    }
    assert.ok(
      !report.files.some((f) => f.startsWith('src/') || f.startsWith('test/')),
      'no sources or tests',
    );
    assert.match(report.output, /^Ask the person to open http:\/\/127\.0\.0\.1:\d+\/consent\/gr_/m);
    const claims = report.output.split('\n').filter((l) => /^(core|fragrance) \S+ /.test(l));
    assert.ok(claims.length > 0, report.output);
    assert.ok(
      claims.some((l) => l.startsWith('fragrance ')),
      report.output,
    );
  });
});
