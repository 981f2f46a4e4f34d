// Minimal typings for the parts of autocannon's programmatic API the benchmark uses (the package
// ships none, and @types/autocannon is not a dependency).
declare module 'autocannon' {
  interface Request {
    method?: 'GET' | 'POST';
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface RequestStep extends Request {
    /** Called before each send of this step; returns the request to send. */
    setupRequest?: (request: Request) => Request;
  }
  interface Options {
    url: string;
    /** Steps each connection sends in turn, over and over. */
    requests?: RequestStep[];
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    /** Stop after this many requests (instead of after `duration`). */
    amount?: number;
    timeout?: number;
    title?: string;
  }
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  export interface Result {
    title?: string;
    url: string;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    mismatches: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }
  type Instance = PromiseLike<Result> & { stop(): void };
  function autocannon(options: Options): Instance;
  // biome-ignore lint/style/noDefaultExport: autocannon is a CommonJS function export
  export default autocannon;
}
