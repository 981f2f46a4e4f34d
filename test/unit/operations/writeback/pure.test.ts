import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Claim } from '../../../../src/model/claim.ts';
import type { ClaimHistoryInput } from '../../../../src/model/claim-history.ts';
import { findTarget } from '../../../../src/operations/writeback/apply.ts';
import { profileDiff, sameJson, stateAt } from '../../../../src/operations/writeback/diff.ts';
import { proposalProblems } from '../../../../src/operations/writeback/validate.ts';
import type { Scope } from '../../../../src/policy/scope.ts';

const claim = (id: string, value: unknown, key = 'novelty_tolerance'): Claim => ({
  claim_id: id,
  type: 'preference',
  namespace: 'core',
  key,
  value,
  confidence: 0.5,
  source: { kind: 'observed' },
});

const entry = (id: string, minute: number, c: Claim | null): ClaimHistoryInput => ({
  claim_id: id,
  profile_id: 'ppx:profile:x',
  at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
  claim: c,
  change: c === null ? 'deleted' : 'updated',
  actor: { kind: 'subject', id: 's' },
});
const m = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);

describe('profile diff from history', () => {
  const log = [
    entry('a', 1, claim('a', 0.1)),
    entry('b', 2, claim('b', 0.2)),
    entry('a', 3, claim('a', 0.3)),
    entry('b', 4, null),
    entry('c', 5, claim('c', 0.5)),
  ];

  it('replays the state at an instant', () => {
    assert.deepEqual([...stateAt(log, m(2)).keys()], ['a', 'b']);
    assert.equal(stateAt(log, m(3)).get('a')?.value, 0.3);
    assert.deepEqual([...stateAt(log, m(5)).keys()].sort(), ['a', 'c']);
    assert.equal(stateAt(log, m(0)).size, 0);
  });

  it('reports added, changed and removed claims with before and after', () => {
    const d = profileDiff(log, m(2), m(5));
    assert.deepEqual(
      d.added.map((x) => x.claim_id),
      ['c'],
    );
    assert.deepEqual(
      d.changed.map((x) => [x.claim_id, (x.before as Claim).value, (x.after as Claim).value]),
      [['a', 0.1, 0.3]],
    );
    assert.deepEqual(
      d.removed.map((x) => [x.claim_id, x.after]),
      [['b', null]],
    );
    assert.deepEqual(profileDiff(log, m(5), m(5)), { added: [], changed: [], removed: [] });
  });

  it('counts a claim added then changed in the span as changed, and one added then removed as removed', () => {
    // From before the log began: a, b and c are all written within the span.
    const d = profileDiff(log, m(0), m(5));
    assert.deepEqual(
      d.changed.map((x) => [x.claim_id, (x.before as Claim).value, (x.after as Claim).value]),
      [['a', 0.1, 0.3]],
    );
    assert.deepEqual(
      d.removed.map((x) => [x.claim_id, (x.before as Claim).value]),
      [['b', 0.2]],
    );
    assert.deepEqual(
      d.added.map((x) => x.claim_id),
      ['c'],
    );
  });

  it('compares JSON structurally, ignoring key order', () => {
    assert.ok(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
    assert.ok(!sameJson({ a: 1 }, { a: 1, b: undefined }));
    assert.ok(!sameJson([1, 2], { 0: 1, 1: 2 }));
  });
});

describe('proposal validation and target', () => {
  const scope = {
    namespaces: new Set(['core']),
    keys: new Set(['novelty_tolerance']),
    grant: { grant_id: 'ppx:grant:g' },
  } as unknown as Scope;

  it('names each bad claim by index and key', () => {
    const { problems } = proposalProblems(
      [
        { ...claim('ppx:claim:a', 0.4) },
        { ...claim('ppx:claim:b', 0.4), confidence: 3 },
        claim('ppx:claim:c', 0.4, 'risk_tolerance'),
        { ...claim('ppx:claim:d', 0.4), namespace: 'fragrance', key: 'family_preference' },
      ],
      scope,
    );
    assert.deepEqual(
      problems.map((p) => [p.index, p.code]),
      [
        [1, 'invalid_request'],
        [2, 'insufficient_scope'],
        [3, 'invalid_request'],
        [3, 'insufficient_scope'],
      ],
    );
    assert.equal(problems[1]?.key, 'risk_tolerance');
  });

  it('accepts a claim without an id', () => {
    const { claims, problems } = proposalProblems([{ ...claim('x', 0.4), claim_id: undefined }], undefined);
    assert.deepEqual(problems, []);
    assert.equal(claims[0]?.claim_id, undefined);
  });

  it('finds the stored claim a proposal updates by key, preferring the named id', () => {
    const stored = [
      claim('ppx:claim:1', 0.1),
      claim('ppx:claim:2', 0.2),
      claim('ppx:claim:3', 0.3, 'risk_tolerance'),
    ];
    assert.equal(
      findTarget(stored, { namespace: 'core', key: 'novelty_tolerance' })?.claim_id,
      'ppx:claim:1',
    );
    assert.equal(
      findTarget(stored, { namespace: 'core', key: 'novelty_tolerance' }, 'ppx:claim:2')?.claim_id,
      'ppx:claim:2',
    );
    assert.equal(
      findTarget(stored, { namespace: 'core', key: 'novelty_tolerance' }, 'ppx:claim:3')?.claim_id,
      'ppx:claim:1',
    );
    assert.equal(findTarget(stored, { namespace: 'core', key: 'budget_sensitivity' }), undefined);
  });
});
