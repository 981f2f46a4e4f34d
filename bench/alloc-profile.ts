import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

// Preloaded into the provider child by BENCH_PROFILE=alloc (harness.ts#providerExecArgv): V8's
// sampling heap profiler, keeping the samples of objects the collector has already freed too, so
// that the profile says what a request allocates (what makes the garbage collector run), not what
// is still alive at the end. Written at exit to bench/results/Alloc.<pid>.heapprofile; read it with
// `node bench/alloc-summary.ts`.

const dir = process.env['BENCH_ALLOC_DIR'] ?? '.';
const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 8192,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
process.on('exit', () => {
  // The inspector answers synchronously on the main thread, so this runs before the process ends.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error === null)
      writeFileSync(join(dir, `Alloc.${process.pid}.heapprofile`), JSON.stringify(result.profile));
  });
});
