import type { Metric, Registry } from 'prom-client';

// A counter and a histogram for the metrics every request touches (ppx_http_requests_total,
// ppx_http_request_duration_seconds, ppx_store_call_duration_seconds), where prom-client's own
// cost showed: each of its `inc` and `observe` checks and hashes its labels again, and a small read
// made one of each and one observe per store call (with the metrics off, a small read took 9 µs
// less CPU and answered 13 % more reads; docs/benchmarks.md). Here a label set is looked up once
// and handed out as a series that adds plain numbers; the registry reads them when scraped, in
// the shape prom-client's own Counter and Histogram give, so the text at /metrics is the same.

/** One label set of a BoundCounter. */
export interface CountSeries {
  inc(): void;
}

/** One label set of a BoundHistogram. */
export interface TimeSeries {
  observe(value: number): void;
}

interface Config {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly registers: readonly Registry[];
}

/** Past this many label sets a metric counts no new one (its labels are bounded: a safety net). */
const MAX_SERIES = 10_000;

interface Series<T> {
  readonly labels: Readonly<Record<string, string>>;
  readonly state: T;
}

/** The label sets of one metric, each found by its values; past MAX_SERIES, a new set is not kept. */
class LabelSets<T> {
  readonly #names: readonly string[];
  readonly #make: () => T;
  readonly #byKey = new Map<string, Series<T>>();

  constructor(names: readonly string[], make: () => T) {
    this.#names = names;
    this.#make = make;
  }

  get(values: readonly string[]): T | undefined {
    if (values.length !== this.#names.length) {
      throw new Error(`expected ${this.#names.length} label values, got ${values.length}`);
    }
    const key = values.join('\u0000');
    let series = this.#byKey.get(key);
    if (series === undefined) {
      if (this.#byKey.size >= MAX_SERIES) return undefined;
      const labels: Record<string, string> = {};
      this.#names.forEach((name, i) => {
        labels[name] = values[i] as string;
      });
      series = { labels, state: this.#make() };
      this.#byKey.set(key, series);
    }
    return series.state;
  }

  all(): Iterable<Series<T>> {
    return this.#byKey.values();
  }
}

const NOTHING = { inc() {}, observe() {} };

abstract class BoundMetric {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum';

  constructor(config: Config) {
    this.name = config.name;
    this.help = config.help;
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** Zeroes every series (prom-client's reset drops them; here the series handed out stay bound). */
  abstract reset(): void;
}

/** A counter's series: its count. */
class Count implements CountSeries {
  value = 0;
  inc(): void {
    this.value += 1;
  }
}

export class BoundCounter extends BoundMetric {
  readonly type = 'counter';
  readonly #sets: LabelSets<Count>;

  constructor(config: Config) {
    super(config);
    this.#sets = new LabelSets(config.labelNames, () => new Count());
  }

  /** The series of these label values, in the order of `labelNames`. */
  series(...values: string[]): CountSeries {
    return this.#sets.get(values) ?? NOTHING;
  }

  /** What prom-client's registry reads (Counter#get's shape). */
  async get() {
    const values = [...this.#sets.all()].map(({ labels, state }) => ({ value: state.value, labels }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const { state } of this.#sets.all()) state.value = 0;
  }
}

/** A histogram's series: counts per bucket (not cumulative: made so when read), sum and count. */
class Buckets implements TimeSeries {
  readonly bounds: readonly number[];
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.counts = new Array<number>(bounds.length).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        this.counts[i] = (this.counts[i] as number) + 1;
        break;
      }
    }
    this.sum += value;
    this.count += 1;
  }
}

export class BoundHistogram extends BoundMetric {
  readonly type = 'histogram';
  readonly #bounds: readonly number[];
  readonly #sets: LabelSets<Buckets>;

  constructor(config: Config & { readonly buckets: readonly number[] }) {
    super(config);
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
    const bounds = this.#bounds;
    this.#sets = new LabelSets(config.labelNames, () => new Buckets(bounds));
  }

  /** The series of these label values, in the order of `labelNames`. */
  series(...values: string[]): TimeSeries {
    return this.#sets.get(values) ?? NOTHING;
  }

  /**
   * What prom-client's registry formats (Histogram#getForPromString's shape: cumulative buckets,
   * +Inf, _sum, _count; `le` as the value's own label and the series' labels as shared ones, so
   * that `le` is printed first, as prom-client prints it).
   */
  async getForPromString() {
    const values: {
      value: number;
      labels: Record<string, string | number>;
      sharedLabels: Readonly<Record<string, string>>;
      metricName: string;
    }[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, state } of this.#sets.all()) {
      let cumulative = 0;
      this.#bounds.forEach((le, i) => {
        cumulative += state.counts[i] as number;
        values.push({ value: cumulative, labels: { le }, sharedLabels: labels, metricName: bucket });
      });
      values.push({ value: state.count, labels: { le: '+Inf' }, sharedLabels: labels, metricName: bucket });
      values.push({ value: state.sum, labels: {}, sharedLabels: labels, metricName: `${this.name}_sum` });
      values.push({ value: state.count, labels: {}, sharedLabels: labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The same, each value's labels whole (Histogram#get's shape, for getMetricsAsJSON). */
  async get() {
    const data = await this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return { ...data, values };
  }

  reset(): void {
    for (const { state } of this.#sets.all()) {
      state.counts.fill(0);
      state.sum = 0;
      state.count = 0;
    }
  }
}
