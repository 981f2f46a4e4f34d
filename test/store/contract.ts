import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { claimShape } from '../../src/model/claim.ts';
import { IdConflictError, type Store } from '../../src/store/store.ts';
import { nextMillisecond } from '../support/clock.ts';
import {
  at,
  auditEvent,
  fullClaim,
  grant,
  minimalClaim,
  modifier,
  profileRecord,
  withStore,
} from '../support/store-records.ts';
import { a2aTaskContract } from './contract-a2a-tasks.ts';
import { auditContract } from './contract-audit.ts';
import { auditLogContract } from './contract-audit-log.ts';
import { changesContract } from './contract-changes.ts';
import { consentContract } from './contract-consent.ts';
import { consentReceiptContract } from './contract-consent-receipts.ts';
import { passkeyContract } from './contract-passkeys.ts';
import { recordsContract } from './contract-records.ts';
import { resourceSubscriptionContract } from './contract-resource-subscriptions.ts';
import { reviewContract } from './contract-reviews.ts';
import { transactionContract } from './contract-transactions.ts';
import { writebackContract } from './contract-writeback.ts';

export interface StoreContractOptions {
  /**
   * Returns an opener of one fresh database that every call opens again: a new instance on the
   * same data (a reopened file, another pool on one PostgreSQL database). The tests of what must
   * survive a restart or be seen from another instance run only with it.
   */
  readonly sameDatabase?: () => () => Promise<Store>;
}

/**
 * The behaviour every Store implementation must have (see the conventions in src/store/store.ts).
 * `open` must return a fresh, empty store on every call; each test closes the store it opened.
 */
export function runStoreContract(
  name: string,
  open: () => Promise<Store>,
  options: StoreContractOptions = {},
): void {
  describe(`Store contract: ${name}`, () => {
    profileContract(open);
    claimAndModifierContract(open);
    recordsContract(open);
    auditContract(open);
    auditLogContract(open);
    consentContract(open);
    reviewContract(open);
    transactionContract(open);
    writebackContract(open);
    changesContract(open);
    a2aTaskContract(open, options.sameDatabase);
    resourceSubscriptionContract(open, options.sameDatabase);
    consentReceiptContract(open);
    passkeyContract(open);
  });
}

function profileContract(open: () => Promise<Store>): void {
  describe('profiles', () => {
    it(
      'round-trips a profile by id and by subject, keeping absent optional fields absent',
      withStore(open, async (store) => {
        const bare = profileRecord();
        const withPolicy = profileRecord({
          default_policy: {
            cross_domain_transfer: 'deny',
            inference_writeback: 'review_required',
            retention_days: 0,
          },
        });
        await store.insertProfile(bare);
        await store.insertProfile(withPolicy);
        assert.deepEqual(await store.getProfile(bare.profile_id), bare);
        assert.deepEqual(await store.getProfileBySubject(bare.subject_id), bare);
        assert.deepEqual(await store.getProfile(withPolicy.profile_id), withPolicy);
        assert.equal('default_policy' in ((await store.getProfile(bare.profile_id)) ?? {}), false);
      }),
    );

    it(
      'returns undefined for a missing profile',
      withStore(open, async (store) => {
        assert.equal(await store.getProfile('ppx:profile:missing'), undefined);
        assert.equal(await store.getProfileBySubject('subj_missing'), undefined);
      }),
    );

    it(
      'rejects a duplicate profile_id and leaves the first one in place',
      withStore(open, async (store) => {
        const first = profileRecord();
        await store.insertProfile(first);
        await assert.rejects(store.insertProfile({ ...first, subject_id: 'subj_other', updated_at: at(5) }));
        assert.deepEqual(await store.getProfile(first.profile_id), first);
      }),
    );

    it(
      'touchProfile sets updated_at, sets default_policy only when given, and is false when missing',
      withStore(open, async (store) => {
        const policy = { cross_domain_transfer: 'allow_with_review' as const };
        const profile = profileRecord({ default_policy: policy });
        await store.insertProfile(profile);
        assert.equal(await store.touchProfile(profile.profile_id, at(1)), true);
        assert.deepEqual(await store.getProfile(profile.profile_id), { ...profile, updated_at: at(1) });
        const next = { inference_writeback: 'forbidden' as const, retention_days: 30 };
        assert.equal(await store.touchProfile(profile.profile_id, at(2), next), true);
        assert.deepEqual(await store.getProfile(profile.profile_id), {
          ...profile,
          updated_at: at(2),
          default_policy: next,
        });
        assert.equal(await store.touchProfile('ppx:profile:missing', at(3)), false);
      }),
    );

    it(
      'countProfiles counts stored profiles',
      withStore(open, async (store) => {
        assert.equal(await store.countProfiles(), 0);
        await store.insertProfile(profileRecord());
        await store.insertProfile(profileRecord());
        assert.equal(await store.countProfiles(), 2);
      }),
    );

    it(
      'deleteProfile removes the profile with its claims and modifiers, but keeps grants and audit',
      withStore(open, async (store) => {
        const profile = profileRecord();
        const other = profileRecord();
        await store.insertProfile(profile);
        await store.insertProfile(other);
        await store.putClaims(profile.profile_id, [minimalClaim(), fullClaim()]);
        await store.putModifiers(profile.profile_id, [modifier()]);
        const otherClaim = minimalClaim();
        await store.putClaims(other.profile_id, [otherClaim]);
        const g = grant({ subject_id: profile.subject_id, profile_id: profile.profile_id });
        await store.insertGrant(g);
        const event = auditEvent({ subject_id: profile.subject_id, grant_id: g.grant_id });
        await store.appendAudit([event]);

        assert.equal(await store.deleteProfile(profile.profile_id), true);
        assert.equal(await store.getProfile(profile.profile_id), undefined);
        assert.equal(await store.getProfileBySubject(profile.subject_id), undefined);
        assert.deepEqual(await store.listClaims(profile.profile_id), []);
        assert.deepEqual(await store.listModifiers(profile.profile_id), []);
        assert.deepEqual(await store.getGrant(g.grant_id), g);
        const page = await store.listAudit({ subject_id: profile.subject_id, limit: 10 });
        assert.deepEqual(page.events, [event]);
        assert.deepEqual(await store.listClaims(other.profile_id), [otherClaim]);
        assert.equal(await store.countProfiles(), 1);
        assert.equal(await store.deleteProfile(profile.profile_id), false);
      }),
    );

    it(
      'rejects further calls after close',
      withStore(open, async (store) => {
        await store.close();
        await assert.rejects(store.countProfiles());
        await assert.rejects(store.insertProfile(profileRecord()));
        await assert.rejects(store.transaction(async () => 1));
      }),
    );
  });
}

function claimAndModifierContract(open: () => Promise<Store>): void {
  describe('claims and modifiers', () => {
    it(
      'getProfileContent gives what getProfile, listClaims and listModifiers give, before and after a change',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        assert.equal(await store.getProfileContent('ppx:profile:missing'), undefined);
        const content = async () => ({
          profile: await store.getProfile(profile.profile_id),
          claims: await store.listClaims(profile.profile_id),
          modifiers: await store.listModifiers(profile.profile_id),
        });
        assert.deepEqual(await store.getProfileContent(profile.profile_id), await content());
        await store.putClaims(profile.profile_id, [minimalClaim()]);
        await store.putModifiers(profile.profile_id, [modifier()]);
        const after = await store.getProfileContent(profile.profile_id);
        assert.deepEqual(after, await content());
        assert.equal(after?.claims.length, 1);
        await store.transaction(async (tx) => {
          assert.deepEqual(await tx.getProfileContent(profile.profile_id), after);
          await tx.deleteClaims(profile.profile_id, [after!.claims[0]!.claim_id]);
          assert.deepEqual((await tx.getProfileContent(profile.profile_id))?.claims, []);
        });
        assert.deepEqual((await store.getProfileContent(profile.profile_id))?.claims, []);
      }),
    );

    it(
      'listClaimChanges keeps one time per claim shape: moved by every write to or from it, kept after a delete, gone with the profile',
      withStore(open, async (store) => {
        const tick = nextMillisecond;
        const profile = profileRecord();
        await store.insertProfile(profile);
        assert.deepEqual(await store.listClaimChanges(profile.profile_id), []);
        const core = minimalClaim({ namespace: 'core', review: { user_visible: true } });
        const travel = minimalClaim({
          namespace: 'travel',
          key: 'pace_preference',
          // A domain claim belongs to its namespace: the domains it names are not part of its shape.
          applicability: { domains: ['fragrance'], contexts: ['default'] },
          review: { review_status: 'confirmed' },
        });
        await store.putClaims(profile.profile_id, [core, travel]);
        const shapes = async () =>
          (await store.listClaimChanges(profile.profile_id)).map(({ changed_at: _, ...shape }) => shape);
        assert.deepEqual(await shapes(), [claimShape(core), claimShape(travel)]);
        assert.deepEqual(claimShape(travel), {
          namespace: 'travel',
          key: 'pace_preference',
          source: { kind: 'user_stated' },
          review: { review_status: 'confirmed' },
        });
        for (const c of await store.listClaimChanges(profile.profile_id)) {
          assert.ok(!Number.isNaN(Date.parse(c.changed_at)), c.changed_at);
        }
        const timeOf = async (shape: object) =>
          (await store.listClaimChanges(profile.profile_id)).find(
            ({ changed_at: _, ...s }) => JSON.stringify(s) === JSON.stringify(shape),
          )?.changed_at;
        const [core0, travel0] = [await timeOf(claimShape(core)), await timeOf(claimShape(travel))];
        await tick();
        // A value change keeps the shape and moves its time, and no other.
        await store.putClaims(profile.profile_id, [{ ...core, confidence: 0.1 }]);
        const core1 = await timeOf(claimShape(core));
        assert.ok(core1 && core0 && core1 > core0, `${core1} after ${core0}`);
        assert.equal(await timeOf(claimShape(travel)), travel0);
        await tick();
        // A change of shape moves the shape it left and the one it took.
        const moved = { ...core, applicability: { domains: ['travel', 'media'] } };
        await store.putClaims(profile.profile_id, [moved]);
        const core2 = await timeOf(claimShape(core));
        assert.ok(core2 && core1 && core2 > core1, 'the shape it left');
        assert.equal(await timeOf(claimShape(moved)), core2, 'the shape it took');
        assert.deepEqual(claimShape(moved).applicability, { domains: ['travel', 'media'] });
        await tick();
        // A deletion moves the shape the claim had, which stays.
        await store.deleteClaims(profile.profile_id, [travel.claim_id]);
        const travel1 = await timeOf(claimShape(travel));
        assert.ok(travel1 && travel0 && travel1 > travel0, 'a deletion moves its shape');
        assert.equal(await timeOf(claimShape(moved)), core2);
        assert.equal((await shapes()).length, 3);
        await store.deleteProfile(profile.profile_id);
        assert.deepEqual(await store.listClaimChanges(profile.profile_id), []);
      }),
    );

    it(
      'listClaimChanges stores each claim as claimShape shapes it',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        const claims = [
          minimalClaim({ key: 'risk_tolerance', applicability: { domains: [] } }),
          minimalClaim({ key: 'budget_sensitivity', applicability: { contexts: ['default'] } }),
          minimalClaim({ applicability: { domains: ['travel', 'fragrance'] }, source: { kind: 'imported' } }),
          minimalClaim({ key: 'ambiguity_tolerance', review: { review_status: 'pending_confirmation' } }),
          fullClaim(),
          minimalClaim({
            namespace: 'travel',
            key: 'pace_preference',
            source: { kind: 'inferred', origin: 'x' },
          }),
        ];
        await store.putClaims(profile.profile_id, claims);
        const shapes = (await store.listClaimChanges(profile.profile_id)).map(({ changed_at: _, ...s }) => s);
        assert.equal(shapes.length, claims.length);
        for (const c of claims)
          assert.ok(
            shapes.some((s) => isDeepStrictEqual(s, claimShape(c))),
            c.claim_id,
          );
      }),
    );

    it(
      'round-trips minimal and fully populated claims exactly',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        const minimal = minimalClaim({ value: ['a', 'b'], value_type: 'string_list' });
        const full = fullClaim();
        await store.putClaims(profile.profile_id, [minimal, full]);
        const claims = await store.listClaims(profile.profile_id);
        assert.deepEqual(claims, [minimal, full]);
        assert.equal('explanation' in (claims[0] ?? {}), false);
      }),
    );

    it(
      'lists claims ordered by namespace, key, claim_id',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        const c = (namespace: string, key: string, id: string) =>
          minimalClaim({ namespace, key, claim_id: `ppx:claim:${id}` });
        const expected = [c('core', 'budget', '2'), c('core', 'novelty', '1'), c('core', 'novelty', '3')];
        expected.push(c('fragrance', 'family', '9'), c('travel', 'pace', '0'));
        const shuffled = [expected[3], expected[2], expected[4], expected[0], expected[1]].map((x) => x!);
        await store.putClaims(profile.profile_id, shuffled);
        assert.deepEqual(await store.listClaims(profile.profile_id), expected);
      }),
    );

    it(
      'upserts claims by claim_id and lists nothing for an unknown profile',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        const claim = fullClaim();
        await store.putClaims(profile.profile_id, [claim]);
        const replaced = minimalClaim({ claim_id: claim.claim_id, key: 'renamed', value: false });
        await store.putClaims(profile.profile_id, [replaced]);
        assert.deepEqual(await store.listClaims(profile.profile_id), [replaced]);
        assert.deepEqual(await store.listClaims('ppx:profile:missing'), []);
      }),
    );

    it(
      'refuses a claim id another profile holds (IdConflictError), writing none of the list',
      withStore(open, async (store) => {
        const mine = profileRecord();
        const theirs = profileRecord();
        await store.insertProfile(mine);
        await store.insertProfile(theirs);
        const taken = minimalClaim({ key: 'theirs' });
        await store.putClaims(theirs.profile_id, [taken]);
        const fresh = minimalClaim({ key: 'fresh' });
        await assert.rejects(
          store.putClaims(mine.profile_id, [fresh, { ...taken, key: 'stolen' }]),
          (error: unknown) => error instanceof IdConflictError && error.id === taken.claim_id,
        );
        assert.deepEqual(await store.listClaims(mine.profile_id), []);
        assert.deepEqual(await store.listClaims(theirs.profile_id), [taken]);
      }),
    );

    it(
      'a list naming one claim id twice keeps the last',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        const first = minimalClaim({ key: 'first' });
        const last = { ...first, key: 'last', value: 0.25 };
        await store.putClaims(profile.profile_id, [first, last]);
        assert.deepEqual(await store.listClaims(profile.profile_id), [last]);
      }),
    );

    it(
      'rejects claims for a missing profile, storing none of the batch',
      withStore(open, async (store) => {
        await assert.rejects(store.putClaims('ppx:profile:missing', [minimalClaim()]));
        assert.deepEqual(await store.listClaims('ppx:profile:missing'), []);
      }),
    );

    it(
      'deleteClaims deletes by id within the profile and counts the ones that existed',
      withStore(open, async (store) => {
        const profile = profileRecord();
        const other = profileRecord();
        await store.insertProfile(profile);
        await store.insertProfile(other);
        const [a, b, c] = [
          minimalClaim({ key: 'a' }),
          minimalClaim({ key: 'b' }),
          minimalClaim({ key: 'c' }),
        ];
        const foreign = minimalClaim();
        await store.putClaims(profile.profile_id, [a, b, c]);
        await store.putClaims(other.profile_id, [foreign]);
        const ids = [a.claim_id, c.claim_id, 'ppx:claim:missing', foreign.claim_id];
        assert.equal(await store.deleteClaims(profile.profile_id, ids), 2);
        assert.deepEqual(await store.listClaims(profile.profile_id), [b]);
        assert.deepEqual(await store.listClaims(other.profile_id), [foreign]);
        assert.equal(await store.deleteClaims(profile.profile_id, []), 0);
      }),
    );

    it(
      'round-trips modifiers, ordered by modifier_id, upserting by id',
      withStore(open, async (store) => {
        const profile = profileRecord();
        await store.insertProfile(profile);
        const m2 = modifier({ modifier_id: 'ppx:modifier:2' });
        const m1 = modifier({
          modifier_id: 'ppx:modifier:1',
          effect_type: 'override',
          effect: { override: { pace: 'slow' } },
          source: { kind: 'user_stated' },
        });
        const bare = { ...modifier({ modifier_id: 'ppx:modifier:3' }) };
        delete bare.targets;
        await store.putModifiers(profile.profile_id, [m2, bare, m1]);
        assert.deepEqual(await store.listModifiers(profile.profile_id), [m1, m2, bare]);
        const m2b = { ...m2, confidence: 0.1 };
        await store.putModifiers(profile.profile_id, [m2b]);
        assert.deepEqual(await store.listModifiers(profile.profile_id), [m1, m2b, bare]);
        assert.deepEqual(await store.listModifiers('ppx:profile:missing'), []);
      }),
    );
  });
}
