import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CampaignReport, runCampaign } from './campaign.ts';
import { formatReport } from './report.ts';
import { TARGETS } from './targets.ts';

// The quick, seeded fuzz run of `npm test` (the full run is `npm run fuzz`, docs/fuzzing.md): the
// same generators and checks over a few thousand inputs against `ppx serve`. A failure prints
// the whole report, with `npm run fuzz -- --seed 20260 --only <index>` for each failing input.

const SEED = 20260;
const INPUTS = 3000;

describe('fuzzing every entry point (quick, seeded)', () => {
  let report: CampaignReport;
  before(async () => {
    report = await runCampaign({ inputs: INPUTS, seed: SEED, store: 'sqlite' });
  });
  after(() => {
    if (process.env['PPX_FUZZ_REPORT'] === '1') console.log(formatReport(report));
  });

  it('tries every input, on every entry point, with every generator', () => {
    assert.equal(report.tried, INPUTS, formatReport(report));
    assert.deepEqual(
      report.problems.filter((p) => p.startsWith('routes no target aims at')),
      [],
      'every route the server mounts has a target',
    );
    const aimed = new Set(TARGETS.map((t) => t.name));
    const reached = new Set(report.byTarget.keys());
    const unreached = [...aimed].filter((t) => !reached.has(t) && !isAppPage(t, report));
    assert.deepEqual(unreached, [], 'every target was tried at least once');
    assert.equal(report.byGenerator.size, 18, [...report.byGenerator.keys()].join(', '));
  });

  it('answers no input with a 5xx, a hidden server error, a trace or a malformed error', () => {
    assert.equal(report.fiveXX, 0, formatReport(report));
    assert.equal(report.failureCount, 0, formatReport(report));
  });

  it('keeps answering, logs no internal error, leaves no stream open, and its memory is bounded', () => {
    assert.deepEqual(report.problems, [], formatReport(report));
    assert.ok(report.memory?.ok, formatReport(report));
  });
});

/** The web app's pages are not fuzzed when its bundle is not built (the report says so). */
function isAppPage(target: string, report: CampaignReport): boolean {
  return (
    report.notFuzzed.length > 0 && /^GET \/app(\/(access|history|activity|data|assets\/:name))?$/.test(target)
  );
}
