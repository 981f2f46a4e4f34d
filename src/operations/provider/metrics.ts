import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ProviderStore } from '../../store/store.ts';
import { BoundCounter, BoundHistogram } from './bound-series.ts';

// What an operator watches (issue 14, item 4; docs/deploy.md "What to watch"), in Prometheus'
// text format at /metrics, with prom-client (the Prometheus client library of Node). One
// registry per provider (tests run several in one process). Labels are bounded and say nothing
// about a person or an app: a route pattern, a surface, an operation, an outcome, never an id.

/** Seconds: from sub-millisecond reads to a slow stream start. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds from a change's commit to its delivery to a following stream. */
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  readonly registry = new Registry();
  // The metrics every request touches are bound series (bound-series.ts says why); the rest are prom-client's own.
  readonly requests = new BoundCounter({
    name: 'ppx_http_requests_total',
    help: 'Requests answered, by surface, route pattern, method and status',
    labelNames: ['surface', 'route', 'method', 'status'],
    registers: [this.registry],
  });
  readonly requestSeconds = new BoundHistogram({
    name: 'ppx_http_request_duration_seconds',
    help: 'Time to answer a request (to the response head, for a stream), by surface and route pattern',
    labelNames: ['surface', 'route'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly grantDecisions = new BoundCounter({
    name: 'ppx_grant_decisions_total',
    help: "A grant's decisions on what a grantee asked for, by operation and outcome (allowed, or the refusal's code)",
    labelNames: ['operation', 'outcome'],
    registers: [this.registry],
  });
  readonly tokenVerifications = new BoundCounter({
    name: 'ppx_token_verifications_total',
    help: 'Bearer tokens verified, by outcome (valid, or the refusal: expired, malformed, another resource, …)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly storeSeconds = new BoundHistogram({
    name: 'ppx_store_call_duration_seconds',
    help: 'Time of a store call made by the operations, by method (transaction: the whole transaction)',
    labelNames: ['method'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly openStreams = new Gauge({
    name: 'ppx_open_streams',
    help: 'Streams open now, by surface (agui: review runs; a2a: task streams; mcp: grantees listening for changes)',
    labelNames: ['surface'] as const,
    registers: [this.registry],
  });
  /** The open streams' unread bytes (surfaces/shared/bounded-stream.ts), summed when scraped. */
  readonly streamBuffers = new Set<{ readonly surface: string; buffered(): number }>();
  readonly streamBufferedBytes = (() => {
    const buffers = this.streamBuffers;
    return new Gauge({
      name: 'ppx_stream_buffered_bytes',
      help: 'Bytes written to open streams that their readers have not taken yet, by surface',
      labelNames: ['surface'] as const,
      registers: [this.registry],
      collect() {
        const sums = new Map<string, number>([
          ['agui', 0],
          ['a2a', 0],
        ]);
        for (const b of buffers) sums.set(b.surface, (sums.get(b.surface) ?? 0) + b.buffered());
        for (const [surface, bytes] of sums) this.labels(surface).set(bytes);
      },
    });
  })();
  readonly streamsCut = new Counter({
    name: 'ppx_streams_cut_total',
    help: 'Streams closed because their reader fell too far behind, by surface',
    labelNames: ['surface'] as const,
    registers: [this.registry],
  });
  readonly changeLagSeconds = new Histogram({
    name: 'ppx_change_event_lag_seconds',
    help: 'From the commit of a change to its delivery to a following review stream',
    buckets: LAG_BUCKETS,
    registers: [this.registry],
  });
  #processMetrics = false;

  /** The process' own metrics (CPU, memory, event loop delay, GC), once: for a serving provider. */
  collectProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'ppx_process_' });
  }

  /** The exposition: text format 0.0.4. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * The store as operations see it, each call timed into `ppx_store_call_duration_seconds`. Only
 * the operations' view is wrapped (the store's own writers inside a transaction are not: the
 * transaction is timed as a whole).
 */
export function timedStore(store: ProviderStore, metrics: Metrics): ProviderStore {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(store) as (keyof ProviderStore)[]) {
    const method = store[name];
    // freshReads wraps a whole request, not a call to the store: its time is the request's own
    // (ppx_http_request_duration_seconds).
    if (typeof method !== 'function' || name === 'freshReads') {
      out[name] = method;
      continue;
    }
    const series = metrics.storeSeconds.series(name);
    out[name] = (...args: unknown[]) => {
      const start = performance.now();
      const end = () => series.observe((performance.now() - start) / 1000);
      const result = (method as (...a: unknown[]) => unknown).apply(store, args);
      if (result instanceof Promise) return result.finally(end);
      end();
      return result;
    };
  }
  return out as unknown as ProviderStore;
}
