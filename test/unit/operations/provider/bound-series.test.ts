import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { BoundCounter, BoundHistogram } from '../../../../src/operations/provider/bound-series.ts';

// The request metrics are counted by bound-series.ts, not by prom-client's own Counter and
// Histogram: what /metrics prints must not change. The same observations go into both, each in a
// registry of its own, and the exposition texts (and the JSON) must be equal.

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const help = 'Some help, with a "quote" and a back\\slash';

describe('bound series', () => {
  it('print what prom-client prints for the same counts and observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const counter = new BoundCounter({
      name: 'c_total',
      help,
      labelNames: ['surface', 'route'],
      registers: [ours],
    });
    const reference = new Counter({
      name: 'c_total',
      help,
      labelNames: ['surface', 'route'],
      registers: [theirs],
    });
    const histogram = new BoundHistogram({
      name: 'h_seconds',
      help,
      labelNames: ['method'],
      buckets: BUCKETS,
      registers: [ours],
    });
    const referenceHistogram = new Histogram({
      name: 'h_seconds',
      help,
      labelNames: ['method'],
      buckets: BUCKETS,
      registers: [theirs],
    });

    const counts: [string, string][] = [
      ['http', '/v1/profile/effective'],
      ['http', '/v1/profile/effective'],
      ['mcp', '/mcp'],
      ['web', 'a "quoted"\nroute'],
    ];
    for (const [surface, route] of counts) {
      counter.series(surface, route).inc();
      reference.inc({ surface, route });
    }
    const observations: [string, number][] = [
      ['getGrant', 0.0001],
      ['getGrant', 0.0005],
      ['getGrant', 0.003],
      ['appendAudit', 7],
      ['appendAudit', 1],
      ['transaction', 0.25],
    ];
    for (const [method, seconds] of observations) {
      histogram.series(method).observe(seconds);
      referenceHistogram.observe({ method }, seconds);
    }
    assert.equal(await ours.metrics(), await theirs.metrics());
    // The JSON too, but for prom-client's exemplar members (always empty here: none are recorded).
    const withoutExemplars = (json: unknown) =>
      JSON.parse(JSON.stringify(json, (key, value) => (key === 'exemplar' ? undefined : value)));
    assert.deepEqual(
      withoutExemplars(await ours.getMetricsAsJSON()),
      withoutExemplars(await theirs.getMetricsAsJSON()),
    );
  });

  it('hand out one series per label set, which stays bound after a reset', async () => {
    const registry = new Registry();
    const counter = new BoundCounter({ name: 'r_total', help, labelNames: ['a'], registers: [registry] });
    const series = counter.series('x');
    assert.equal(counter.series('x'), series);
    series.inc();
    registry.resetMetrics();
    series.inc();
    assert.match(await registry.metrics(), /^r_total\{a="x"\} 1$/m);
    assert.throws(() => counter.series('x', 'y'), /expected 1 label values, got 2/);
  });
});
