import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

// Preloaded into the provider child by BENCH_PROFILE=alloc (harness.ts#providerExecArgv): V8's
// sampling heap profiler, keeping the samples of objects the collector has already freed too, so
// that the profile says what a request allocates (what makes the garbage collector run), not what
// is still alive at the end. Written at exit to bench/results/Alloc.<pid>.heapprofile; read it with
// `node bench/alloc-summary.ts`.
//
// BENCH_ALLOC_SURVIVORS=1 drops the samples of objects a scavenge freed: what is left is what lived
// through one, the bytes a young-generation pause copies and promotes (docs/benchmarks.md, "The
// small read's p99"). BENCH_ALLOC_DELAY=<ms> starts sampling that long after start-up, so that
// what the process built once (modules, caches) and its warm-up stay out of the profile.

const dir = process.env['BENCH_ALLOC_DIR'] ?? '.';
const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
const start = () =>
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env['BENCH_ALLOC_SURVIVORS'] !== '1',
  });
const delay = Number(process.env['BENCH_ALLOC_DELAY'] ?? 0);
if (delay > 0) setTimeout(start, delay).unref();
else start();
process.on('exit', () => {
  // The inspector answers synchronously on the main thread, so this runs before the process ends.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error === null)
      writeFileSync(join(dir, `Alloc.${process.pid}.heapprofile`), JSON.stringify(result.profile));
  });
});
