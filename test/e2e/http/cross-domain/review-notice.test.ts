import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { comparableRun } from '../../../support/compare.ts';
import { decide, pendingReviews } from '../../../support/cross-domain.ts';
import { type ApiResponse, api, startTestProvider, type TestProvider } from '../../../support/provider.ts';

// Issue 10, leak 3: under allow_with_review, `cross_domain_review` must not tell whether claims
// of another domain exist. A grant under allow_with_review whose scope could ever map a claim
// across asks for its review at its first read, whatever the profile holds (docs/cross-domain.md).
// Three providers run the same calls under the same grant: the demo profile (fragrance claims that
// map to core traits), one keeping only fragrance claims that map to nothing, one with no fragrance
// claim at all.

const MAPPABLE = ['family_preference', 'intensity_preference', 'projection_tolerance'];

async function world(fragrance: 'all' | 'unmappable' | 'none', clock: () => Date): Promise<TestProvider> {
  const p = await startTestProvider({ clock });
  const remove = async (path: string) => {
    const r = await api(p.url, path, { method: 'DELETE', token: p.subjectToken });
    assert.equal(r.status, 200, r.text);
  };
  if (fragrance === 'none') await remove('/v1/profile/namespaces/fragrance');
  if (fragrance === 'unmappable') {
    for (const key of MAPPABLE) await remove(`/v1/profile/claims/ppx:claim:demo-frag-${key.split('_')[0]}`);
  }
  return p;
}

interface Run {
  readonly answers: readonly ApiResponse[];
  /** The subject's record of the review, to compare what was asked. */
  readonly reviews: unknown;
}

/** A travel agent's grant over core + fragrance reads, the subject decides, the agent reads again. */
async function script(p: TestProvider, decision: 'approve' | 'reject', expiresAt: string): Promise<Run> {
  const { grant, token } = await p.grant({
    client_id: 'travel-demo',
    allowed_domains: ['travel'],
    allowed_namespaces: ['core', 'fragrance'],
    cross_domain_transfer: 'allow_with_review',
    expires_at: expiresAt,
  });
  const read = () =>
    Promise.all([
      api(p.url, '/v1/profile/effective', { token, body: {} }),
      api(p.url, '/v1/profile/query', { token, body: { requested_namespaces: ['core'] } }),
    ]);
  const first = await read();
  const second = await read();
  const reviews = await pendingReviews(p, grant.grant_id);
  const decided =
    reviews[0] === undefined ? [] : [await decide(p, decision, { review_id: reviews[0].review_id })];
  const afterDecision = await read();
  return {
    answers: [...first, ...second, ...afterDecision],
    reviews: { reviews, decided: decided.map((d) => d.json) },
  };
}

const isMapped = (c: { source?: { origin?: string } }) =>
  c.source?.origin?.startsWith('ppx-trait-map/') === true;

/** Status and body; with `withoutMapped`, the mapped traits (what an approval lets through) set aside. */
function comparable(run: Run, withoutMapped = false): unknown {
  return comparableRun([
    ...run.answers.map((r) => ({
      status: r.status,
      body: withoutMapped ? { ...r.json, claims: r.json.claims.filter((c: object) => !isMapped(c)) } : r.json,
    })),
    run.reviews,
  ]);
}

describe('cross_domain_review says nothing about claims of another domain', () => {
  const providers: Record<'all' | 'unmappable' | 'none', TestProvider[]> = {
    all: [],
    unmappable: [],
    none: [],
  };
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  before(async () => {
    // One frozen clock for all, so that every time an answer states is the same everywhere.
    const now = new Date();
    const clock = () => now;
    for (const kind of ['all', 'unmappable', 'none'] as const) {
      providers[kind] = [await world(kind, clock), await world(kind, clock)];
    }
  });
  after(() =>
    Promise.all(
      Object.values(providers)
        .flat()
        .map((p) => p.close()),
    ),
  );

  it('pending, then rejected: the same answers whatever the profile holds', async () => {
    const runs = await Promise.all(
      (['all', 'unmappable', 'none'] as const).map((k) => script(providers[k][0]!, 'reject', expiresAt)),
    );
    const [all, unmappable, none] = runs as [Run, Run, Run];
    assert.equal(all.answers[0]?.status, 200, all.answers[0]?.text);
    assert.equal(all.answers[0]?.json.cross_domain_review?.status, 'pending');
    assert.equal(all.answers.at(-2)?.json.cross_domain_review?.status, 'rejected');
    assert.deepEqual(comparable(none), comparable(all));
    assert.deepEqual(comparable(unmappable), comparable(all));
  });

  it('approved: the same answers, but for the mapped traits the approval lets through', async () => {
    const runs = await Promise.all(
      (['all', 'unmappable', 'none'] as const).map((k) => script(providers[k][1]!, 'approve', expiresAt)),
    );
    const [all, unmappable, none] = runs as [Run, Run, Run];
    assert.equal(all.answers.at(-2)?.json.cross_domain_review?.status, 'approved');
    const mapped = (r: Run) =>
      r.answers.flatMap((a) => a.json.claims.filter(isMapped).map((c: { key: string }) => c.key));
    assert.ok(mapped(all).length > 0, 'the demo fragrance claims map to core traits once approved');
    assert.deepEqual(mapped(none), []);
    assert.deepEqual(mapped(unmappable), []);
    // Claims that stay hidden after the approval change nothing at all.
    assert.deepEqual(comparable(unmappable), comparable(none));
    assert.deepEqual(comparable(none, true), comparable(all, true));
  });
});
