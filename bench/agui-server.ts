import { parseArgs } from 'node:util';
import { qualifiedKey } from '../src/model/claim.ts';
import type { Profile } from '../src/model/profile.ts';
import type { Deps } from '../src/operations/deps.ts';
import { importProfile } from '../src/operations/export-import/import-profile.ts';
import { createGrant } from '../src/operations/grants/consent-grants.ts';
import { demoProfile } from '../src/operations/seed/demo-profile.ts';
import { issueGrantToken, issueSubjectToken } from '../src/operations/tokens/issue-tokens.ts';
import { startServer } from '../src/server.ts';
import { DEMO, LARGE, readerOf, runEntry, seedBenchProvider, serveUntilStopped } from './bench-provider.ts';
import { BENCH_NAMESPACES } from './fixtures.ts';

// Child-process entry of `npm run bench:agui`: the real provider (SQLite file store, rate limiting
// off) holding the demo profile (`--profile demo`, default) or the 200-claim fixture (`large`),
// the bench's read grant (read + query over core, fragrance and travel), and a second grant of the
// same client with `propose_update` under writeback policy `allow`, through which the bench
// changes one claim's value again and again (an applied proposal: a new value in the person's
// review state each time). The claim is the first normalized float of its key that is not
// user_stated (a proposal never overwrites what the person stated). Prints one JSON line
// {"url","readToken","writeToken","subjectToken","namespace","key","claimId","subjects"}, then
// serves. `--subjects N` (demo profile only): N - 1 more people, each holding a copy of the demo
// profile (ids suffixed) and a write grant of their own; `subjects` is the JSON text of the list
// of every person's {subjectToken, writeToken, claimId}, the bench's reader first.

/** The demo profile as another person's: the same claims and modifiers under ids of their own. */
function copyOfDemo(deps: Deps, n: number): Profile {
  const suffix = `-copy-${String(n).padStart(4, '0')}`;
  const doc = demoProfile(deps.clock());
  return {
    ...doc,
    provider_id: deps.provider.providerId,
    profile_id: doc.profile_id + suffix,
    subject_id: `did:example:bench-agui${suffix}`,
    claims: (doc.claims ?? []).map((c) => ({ ...c, claim_id: c.claim_id + suffix })),
    context_modifiers: (doc.context_modifiers ?? []).map((m) => ({
      ...m,
      modifier_id: m.modifier_id + suffix,
    })),
  };
}

async function writeGrantFor(deps: Deps, subject: string, client: string) {
  const grant = await createGrant(
    deps,
    {
      subject_id: subject,
      client_id: client,
      purposes: ['recommendation'],
      allowed_domains: [...BENCH_NAMESPACES],
      allowed_namespaces: [...BENCH_NAMESPACES],
      allowed_operations: ['read', 'query', 'propose_update'],
      writeback_policy: 'allow',
      expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    },
    'operator',
  );
  if (!grant.ok) throw new Error(`bench:agui provider: write grant: ${grant.error.description}`);
  return (await issueGrantToken(deps, grant.value)).access_token;
}

runEntry(async () => {
  const { values } = parseArgs({
    options: { profile: { type: 'string', default: 'demo' }, subjects: { type: 'string', default: '1' } },
  });
  if (values.profile !== 'demo' && values.profile !== 'large')
    throw new Error(`--profile must be demo or large, not ${values.profile}`);
  const subjects = Number(values.subjects);
  if (!Number.isInteger(subjects) || subjects < 1) throw new Error('--subjects must be a positive integer');
  if (subjects > 1 && values.profile !== 'demo') throw new Error('--subjects > 1 needs --profile demo');
  const profile = values.profile === 'demo' ? DEMO : LARGE;
  const bench = await seedBenchProvider('ppx-bench-agui-', profile);
  const { subject, client } = readerOf(profile);
  const stored = await bench.deps.store.getProfileBySubject(subject);
  if (!stored) throw new Error('bench:agui provider: the subject has no profile');
  const claims = await bench.deps.store.listClaims(stored.profile_id);
  const target = claims.find(
    (c, i) =>
      c.value_type === 'float' &&
      c.units === 'normalized_0_1' &&
      c.source.kind !== 'user_stated' &&
      claims.findIndex((o) => qualifiedKey(o) === qualifiedKey(c)) === i,
  );
  if (!target) throw new Error('bench:agui provider: no claim the write grant may change');
  const writeToken = await writeGrantFor(bench.deps, subject, client);
  const readToken = (await issueGrantToken(bench.deps, bench.grant)).access_token;
  const subjectToken = (await issueSubjectToken(bench.deps, subject)).access_token;
  const people = [{ subjectToken, writeToken, claimId: target.claim_id }];
  for (let n = 1; n < subjects; n++) {
    const doc = copyOfDemo(bench.deps, n);
    const imported = await importProfile(bench.deps, doc);
    if (!imported.ok) throw new Error(`bench:agui provider: import: ${imported.error.description}`);
    people.push({
      subjectToken: (await issueSubjectToken(bench.deps, doc.subject_id)).access_token,
      writeToken: await writeGrantFor(bench.deps, doc.subject_id, client),
      claimId: `${target.claim_id}-copy-${String(n).padStart(4, '0')}`,
    });
  }
  const server = await startServer(bench.deps, bench.config, (msg) =>
    process.stderr.write(`[provider] ${msg}\n`),
  );
  serveUntilStopped(bench, server, {
    url: server.url,
    readToken,
    writeToken,
    subjectToken,
    namespace: target.namespace,
    key: target.key,
    claimId: target.claim_id,
    subjects: JSON.stringify(people),
  });
});
