import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startChild, stopChild } from './children.ts';
import { BENCH_CONTEXT } from './fixtures.ts';
import { runMain } from './harness.ts';

// `node bench/scale-profile.ts --store PATH|URL [--reads 2000] [--listings 1000] [--dir DIR]`: the
// provider of bench:scale (scale-server.ts) on a seeded store under `node --cpu-prof`, answering
// the bench's reads and then its audit listings one at a time, its profile written to --dir
// (summarize with bench/profile-summary.ts). To find where the time goes at 10M claims.

runMain('bench:scale-profile', async () => {
  const { values } = parseArgs({
    options: {
      store: { type: 'string' },
      reads: { type: 'string', default: '2000' },
      listings: { type: 'string', default: '1000' },
      dir: { type: 'string', default: join(import.meta.dirname, 'results') },
    },
  });
  if (!values.store) throw new Error('--store is the seeded file or PostgreSQL URL');
  const child = startChild('provider', [join(import.meta.dirname, 'scale-server.ts'), values.store], {
    execArgv: ['--cpu-prof', `--cpu-prof-dir=${values.dir}`],
  });
  try {
    const info = await child.ready;
    const call = async (path: string, token: string, body?: string) => {
      const r = await fetch(`${info['url']}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body ? { body } : {}),
      });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    };
    const body = JSON.stringify({ context: BENCH_CONTEXT });
    for (let i = 0; i < Number(values.reads); i++)
      await call('/v1/profile/effective', info['grantToken']!, body);
    for (let i = 0; i < Number(values.listings); i++) {
      await call('/v1/audit/events?order=newest&limit=50', info['subjectToken']!);
    }
  } finally {
    await stopChild(child);
  }
});
