import type { AuditEvent } from '../src/model/audit-event.ts';
import { newId } from '../src/model/ids.ts';
import { DEMO_CLIENTS, DEMO_SUBJECT, demoProfile } from '../src/operations/seed/demo-profile.ts';
import { issueGrantToken, issueSubjectToken } from '../src/operations/tokens/issue-tokens.ts';
import { startServer } from '../src/server.ts';
import type { ProviderStore } from '../src/store/store.ts';
import { DEMO, runEntry, seedBenchProvider, serveUntilStopped } from './bench-provider.ts';

// Child-process entry of `npm run bench:audit-listing`: the real provider on the demo profile,
// its store holding EVENTS audit events appended through `appendAudit` (batches of 1,000) before
// it serves: three subjects (the demo subject has 3 in 5), three grants, three actors, common
// read actions, and RARE_ACTION once every 10,000 events; times one event per 86.4 s, the last
// at start-up. Prints {"url","grantToken","subjectToken","since","rareAction","events"}
// (`since`: the time of the event 1,000 before the last), then serves until stopped.

const EVENTS = 100_000;
const RARE_ACTION = 'sensitive_keys_changed';
const BATCH = 1000;
const STEP_MS = 86_400;
const SUBJECTS = [
  DEMO_SUBJECT,
  DEMO_SUBJECT,
  DEMO_SUBJECT,
  'did:example:other-0002',
  'did:example:other-0003',
];
const ACTIONS = ['effective', 'read', 'query', 'summary', 'effective'] as const;
const KEYS = (demoProfile(new Date(0)).claims ?? []).slice(0, 12).map((c) => `${c.namespace}.${c.key}`);

function event(i: number, start: number, grants: readonly string[]): AuditEvent {
  const subject = SUBJECTS[i % SUBJECTS.length]!;
  const actor: AuditEvent['actor'] =
    i % 7 === 0 ? { kind: 'subject', id: subject } : { kind: 'grantee', id: DEMO_CLIENTS[i % 2]!.client_id };
  const rare = i % 10_000 === 5_000;
  return {
    event_id: newId('event'),
    at: new Date(start + i * STEP_MS).toISOString(),
    subject_id: subject,
    actor,
    ...(actor.kind === 'grantee' ? { grant_id: grants[i % grants.length]! } : {}),
    action: rare ? RARE_ACTION : ACTIONS[i % ACTIONS.length]!,
    claim_keys: rare ? KEYS.slice(0, 2) : KEYS,
    outcome: 'ok',
  };
}

async function appendAll(store: ProviderStore, grants: readonly string[], end: number): Promise<void> {
  const start = end - (EVENTS - 1) * STEP_MS;
  for (let first = 0; first < EVENTS; first += BATCH) {
    const batch: AuditEvent[] = [];
    for (let i = first; i < Math.min(EVENTS, first + BATCH); i++) batch.push(event(i, start, grants));
    await store.appendAudit(batch);
  }
}

runEntry(async () => {
  // The log is filled before the provider is seeded, so that its events, like a real log's, are
  // in the order of their times: the seed's own events (the grant, the import) come last.
  const end = Date.now() - 1000;
  const grants = ['ppx:grant:bench-listing-0', 'ppx:grant:bench-listing-1', 'ppx:grant:bench-listing-2'];
  const bench = await seedBenchProvider('ppx-bench-listing-', DEMO, (deps) =>
    appendAll(deps.store, grants, end),
  );
  const grantToken = (await issueGrantToken(bench.deps, bench.grant)).access_token;
  const subjectToken = (await issueSubjectToken(bench.deps, DEMO_SUBJECT)).access_token;
  const server = await startServer(bench.deps, bench.config, (msg) =>
    process.stderr.write(`[provider] ${msg}\n`),
  );
  const since = new Date(end - 1000 * STEP_MS).toISOString();
  const ready = { url: server.url, grantToken, subjectToken, since, rareAction: RARE_ACTION };
  serveUntilStopped(bench, server, { ...ready, events: String(EVENTS) });
});
