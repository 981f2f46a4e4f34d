import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { Claim } from '../src/model/claim.ts';
import { TASK_CAP_BYTES, TASK_CAP_COUNT } from '../src/operations/a2a/tasks.ts';
import { issueGrantToken } from '../src/operations/tokens/issue-tokens.ts';
import { inTransaction } from '../src/operations/transaction.ts';
import { startServer } from '../src/server.ts';
import { A2UI_EXTENSION } from '../src/surfaces/a2a/a2ui-parts.ts';
import { ask } from '../test/support/a2a-client.ts';
import { DEMO, seedBenchProvider } from './bench-provider.ts';
import { runMain } from './harness.ts';
import { markdown } from './rounds.ts';

// `npm run bench:a2a-task-size [-- --calls 100]`: what one grant's A2A tasks keep in the store (issue
// 22 item 11). The demo profile gains one claim of about 200 KB (a map of 5,000 named entries,
// which A2UI draws a row each); an A2A SDK client asking for the A2UI extension then calls
// get_effective_profile `--calls` times under one grant. After some of the calls the table gives
// how many tasks the grant keeps and their bytes (the stored bodies, UTF-8), beside what one task
// would have kept with its A2UI parts stored too (the answer as the client got it: what was
// stored before the fix, 3.9 MB a task in the issue's probe). Sizes only; no timing.

function bigClaim(): Claim {
  const value: Record<string, number> = {};
  for (let i = 0; i < 5000; i++) value[`family_${String(i).padStart(5, '0')}_${'x'.repeat(20)}`] = 0.5;
  return {
    claim_id: 'ppx:claim:bench-big-families',
    type: 'preference',
    namespace: 'fragrance',
    key: 'family_preference',
    value,
    value_type: 'map<string,float>',
    confidence: 0.8,
    source: { kind: 'user_stated' },
  } as Claim;
}

const MB = (n: number) => (n / 1_048_576).toFixed(2);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '100' } } });
  const calls = Number(values.calls);
  if (!Number.isInteger(calls) || calls <= 0) throw new Error('--calls must be a positive integer');
  const bench = await seedBenchProvider('ppx-bench-a2a-task-', DEMO);
  const server = await startServer(bench.deps, bench.config, () => undefined);
  try {
    const deps = bench.deps;
    const profile = await deps.store.getProfileBySubject(bench.grant.subject_id);
    if (profile === undefined) throw new Error('the demo profile is missing');
    const claim = bigClaim();
    await inTransaction(deps, (tx) => tx.store.putClaims(profile.profile_id, [claim]));
    const token = (await issueGrantToken(deps, bench.grant, undefined, `${server.url}/a2a`)).access_token;
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('Authorization', `Bearer ${token}`);
      headers.set('A2A-Extensions', A2UI_EXTENSION);
      return fetch(input, { ...init, headers });
    };
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }).createFromUrl(server.url);

    const marks = new Set([1, 2, 5, 10, 20, 50, 100, 200, 300, calls].filter((n) => n <= calls));
    const rows: string[][] = [];
    for (let i = 1; i <= calls; i++) {
      const sent = await client.sendMessage(ask('get_effective_profile', { context: {} }));
      if (!('artifacts' in sent)) throw new Error('the answer was not a task');
      if (!marks.has(i)) continue;
      const page = await deps.store.listA2aTasks(bench.grant.grant_id, { pageSize: 100 });
      const bytes = page.tasks.reduce((n, t) => n + Buffer.byteLength(t.body), 0);
      const drawn = Buffer.byteLength(JSON.stringify(Task.toJSON(sent)));
      rows.push([
        String(i),
        String(page.total),
        MB(bytes),
        page.total > 0 ? (bytes / page.total / 1024).toFixed(0) : '0',
        (drawn / 1024).toFixed(0),
        MB(drawn * Math.min(i, TASK_CAP_COUNT)),
      ]);
    }
    const claimKb = (Buffer.byteLength(JSON.stringify(claim)) / 1024).toFixed(0);
    console.log(
      `A2A tasks kept by one grant, one ${claimKb} KB claim, A2UI asked for; cap ${TASK_CAP_COUNT} tasks / ${MB(TASK_CAP_BYTES)} MB\n`,
    );
    console.log(
      markdown(
        [
          'calls',
          'tasks kept',
          'MB kept',
          'KB per task kept',
          'KB per answer (drawn)',
          'MB had answers been stored drawn (before the fix)',
        ],
        rows,
      ),
    );
  } finally {
    await server.close();
    await bench.deps.store.close();
    rmSync(bench.dir, { recursive: true, force: true });
  }
}

runMain('bench:a2a-task-size', main);
