import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdConflictError, type Store } from '../../src/store/store.ts';
import {
  at,
  dynamicClient,
  grant,
  grantRequest,
  grantRequestDraft,
  publicClient,
  refreshChain,
  refreshToken,
  session,
  subject,
  subjectId,
  tokenFamily,
  withStore,
} from '../support/store-records.ts';

const isConflict = (id: string) => (error: unknown) => error instanceof IdConflictError && error.id === id;

/** Subjects, sessions, grant requests, token families and refresh tokens (the consent side). */
export function consentContract(open: () => Promise<Store>): void {
  subjectContract(open);
  grantRequestContract(open);
  tokenContract(open);
  describe('pairwise subjects', () => {
    it(
      'finds the subject behind a pairwise id for the client it was recorded for only; recording twice is harmless',
      withStore(open, async (store) => {
        await store.rememberPairwiseSubject('client-a', 'ppx:subject:aaa', 'did:example:s1');
        await store.rememberPairwiseSubject('client-a', 'ppx:subject:aaa', 'did:example:s1');
        await store.rememberPairwiseSubject('client-b', 'ppx:subject:bbb', 'did:example:s1');
        assert.equal(await store.subjectForPairwise('client-a', 'ppx:subject:aaa'), 'did:example:s1');
        assert.equal(await store.subjectForPairwise('client-b', 'ppx:subject:bbb'), 'did:example:s1');
        assert.equal(await store.subjectForPairwise('client-b', 'ppx:subject:aaa'), undefined);
        assert.equal(await store.subjectForPairwise('client-a', 'ppx:subject:zzz'), undefined);
      }),
    );
  });
  describe('single-use expiry', () => {
    it(
      'shortenGrantExpiry only moves an expiry earlier, and sets one where there was none',
      withStore(open, async (store) => {
        const g = grant({ expires_at: '2026-06-01T00:00:00.000Z', access_mode: 'single_use' });
        await store.insertGrant(g);
        const shorter = await store.shortenGrantExpiry(g.grant_id, '2026-05-01T00:00:00.000Z');
        assert.equal(shorter?.expires_at, '2026-05-01T00:00:00.000Z');
        const later = await store.shortenGrantExpiry(g.grant_id, '2026-07-01T00:00:00.000Z');
        assert.equal(later?.expires_at, '2026-05-01T00:00:00.000Z');
        assert.deepEqual(await store.getGrant(g.grant_id), { ...g, expires_at: '2026-05-01T00:00:00.000Z' });

        const open_ = grant();
        await store.insertGrant(open_);
        assert.equal(
          (await store.shortenGrantExpiry(open_.grant_id, '2026-05-02T00:00:00Z'))?.expires_at,
          '2026-05-02T00:00:00.000Z',
        );
        assert.equal(await store.shortenGrantExpiry('ppx:grant:missing', '2026-05-02T00:00:00Z'), undefined);
      }),
    );
  });
}

function subjectContract(open: () => Promise<Store>): void {
  describe('subjects and sessions', () => {
    it(
      'round-trips a subject by id and by username; missing is undefined',
      withStore(open, async (store) => {
        const s = subject();
        await store.insertSubject(s);
        assert.deepEqual(await store.getSubject(s.subject_id), s);
        assert.deepEqual(await store.getSubjectByUsername(s.username), s);
        assert.equal(await store.getSubject('subj_missing'), undefined);
        assert.equal(await store.getSubjectByUsername('nobody'), undefined);
      }),
    );

    it(
      'rejects a taken subject_id or username with IdConflictError, keeping the first',
      withStore(open, async (store) => {
        const first = subject();
        await store.insertSubject(first);
        const sameId = subject({ subject_id: first.subject_id });
        await assert.rejects(store.insertSubject(sameId), isConflict(first.subject_id));
        assert.equal(await store.getSubjectByUsername(sameId.username), undefined);
        const sameName = subject({ username: first.username });
        await assert.rejects(store.insertSubject(sameName), isConflict(first.username));
        assert.equal(await store.getSubject(sameName.subject_id), undefined);
        assert.deepEqual(await store.getSubject(first.subject_id), first);
        assert.deepEqual(await store.getSubjectByUsername(first.username), first);
      }),
    );

    it(
      'round-trips a client registered with source and metadata',
      withStore(open, async (store) => {
        const client = dynamicClient();
        await store.putClient(client);
        assert.deepEqual(await store.getClient(client.client_id), client);
        assert.deepEqual(await store.listClients(), [client]);
        const fromDocument = dynamicClient({ client_id: 'https://app.example/client.json' });
        await store.putClient({ ...fromDocument, source: 'metadata_document' });
        assert.equal((await store.getClient(fromDocument.client_id))?.source, 'metadata_document');
      }),
    );

    it(
      'inserts, gets and deletes sessions; a duplicate hash is rejected',
      withStore(open, async (store) => {
        const s = session();
        const other = session({ subject_id: s.subject_id });
        await store.insertSession(s);
        await store.insertSession(other);
        assert.deepEqual(await store.getSession(s.session_hash), s);
        await assert.rejects(store.insertSession({ ...s, csrf_token: 'csrf_other' }));
        assert.deepEqual(await store.getSession(s.session_hash), s);
        assert.equal(await store.deleteSession(s.session_hash), true);
        assert.equal(await store.getSession(s.session_hash), undefined);
        assert.equal(await store.deleteSession(s.session_hash), false);
        assert.deepEqual(await store.getSession(other.session_hash), other);
        assert.equal(await store.getSession('sess_missing'), undefined);
      }),
    );
  });
}

function grantRequestContract(open: () => Promise<Store>): void {
  describe('grant requests', () => {
    it(
      'lists the requests of a package in detail order, and only those',
      withStore(open, async (store) => {
        const pkg = (index: number, detail_id: string) => ({ package_id: 'pkg_a', detail_id, index });
        const second = grantRequest({ package: pkg(1, 'travel') });
        const first = grantRequest({ package: pkg(0, 'fragrance') });
        await store.insertGrantRequest(second);
        await store.insertGrantRequest(first);
        await store.insertGrantRequest(
          grantRequest({ package: { package_id: 'pkg_b', detail_id: 'x', index: 0 } }),
        );
        await store.insertGrantRequest(grantRequest());
        assert.deepEqual(await store.listGrantRequestsByPackage('pkg_a'), [first, second]);
        assert.deepEqual(await store.listGrantRequestsByPackage('pkg_missing'), []);
      }),
    );

    it(
      'round-trips requests with and without optional fields; missing is undefined',
      withStore(open, async (store) => {
        const bare = grantRequest();
        const full = grantRequest({
          draft: grantRequestDraft({ allowed_claim_keys: ['novelty_tolerance'], access_mode: 'single_use' }),
          status: 'approved',
          grant_id: 'ppx:grant:g1',
          decided_at: at(2),
        });
        await store.insertGrantRequest(bare);
        await store.insertGrantRequest(full);
        const stored = await store.getGrantRequest(bare.grant_request_id);
        assert.deepEqual(stored, bare);
        for (const field of ['grant_id', 'decided_at']) assert.equal(field in (stored ?? {}), false, field);
        assert.equal('allowed_claim_keys' in (stored?.draft ?? {}), false);
        assert.deepEqual(await store.getGrantRequest(full.grant_request_id), full);
        assert.equal(await store.getGrantRequest('ppx:grant_request:missing'), undefined);
        await assert.rejects(store.insertGrantRequest({ ...bare, client_id: 'client_other' }));
        assert.deepEqual(await store.getGrantRequest(bare.grant_request_id), bare);
      }),
    );

    it(
      'transitionGrantRequest applies the patch while the status is as expected',
      withStore(open, async (store) => {
        const req = grantRequest();
        await store.insertGrantRequest(req);
        const draft = grantRequestDraft({ purposes: ['ranking'], allowed_domains: [] });
        const approved = {
          ...req,
          status: 'approved' as const,
          grant_id: 'ppx:grant:g',
          decided_at: at(1),
          draft,
        };
        const patch = { status: 'approved' as const, grant_id: 'ppx:grant:g', decided_at: at(1), draft };
        assert.deepEqual(
          await store.transitionGrantRequest(req.grant_request_id, 'pending', patch),
          approved,
        );
        assert.deepEqual(await store.getGrantRequest(req.grant_request_id), approved);
        const exchanged = await store.transitionGrantRequest(req.grant_request_id, 'approved', {
          status: 'exchanged',
        });
        assert.deepEqual(exchanged, { ...approved, status: 'exchanged' });
        assert.deepEqual(await store.getGrantRequest(req.grant_request_id), exchanged);
      }),
    );

    it(
      'a patch that keeps the status, or sets fields to undefined, leaves the rest as it was',
      withStore(open, async (store) => {
        const req = grantRequest({
          draft: grantRequestDraft({ allowed_claim_keys: ['novelty_tolerance'] }),
        });
        await store.insertGrantRequest(req);
        const draft = grantRequestDraft({ purposes: ['ranking'] });
        const edited = await store.transitionGrantRequest(req.grant_request_id, 'pending', {
          draft,
          grant_id: undefined,
        });
        assert.deepEqual(edited, { ...req, draft });
        assert.equal('allowed_claim_keys' in (edited?.draft ?? {}), false);
        assert.equal('grant_id' in (edited ?? {}), false);
        assert.deepEqual(await store.getGrantRequest(req.grant_request_id), edited);
        assert.deepEqual(await store.transitionGrantRequest(req.grant_request_id, 'pending', {}), edited);
      }),
    );

    it(
      'returns undefined and changes nothing when the status is not the expected one, or it is missing',
      withStore(open, async (store) => {
        const req = grantRequest({ status: 'rejected', decided_at: at(1) });
        await store.insertGrantRequest(req);
        const patch = { status: 'approved' as const, grant_id: 'ppx:grant:x', decided_at: at(2) };
        assert.equal(await store.transitionGrantRequest(req.grant_request_id, 'pending', patch), undefined);
        assert.deepEqual(await store.getGrantRequest(req.grant_request_id), req);
        assert.equal(
          await store.transitionGrantRequest('ppx:grant_request:missing', 'pending', patch),
          undefined,
        );
      }),
    );

    it(
      'of concurrent transitions from pending, exactly one succeeds',
      withStore(open, async (store) => {
        const req = grantRequest();
        await store.insertGrantRequest(req);
        const results = await Promise.all([
          store.transitionGrantRequest(req.grant_request_id, 'pending', {
            status: 'approved',
            grant_id: 'ppx:grant:a',
            decided_at: at(1),
          }),
          store.transitionGrantRequest(req.grant_request_id, 'pending', {
            status: 'rejected',
            decided_at: at(1),
          }),
          store.transitionGrantRequest(req.grant_request_id, 'pending', {
            status: 'approved',
            grant_id: 'ppx:grant:b',
            decided_at: at(1),
          }),
        ]);
        const winners = results.filter((r) => r !== undefined);
        assert.equal(winners.length, 1);
        assert.deepEqual(await store.getGrantRequest(req.grant_request_id), winners[0]);
      }),
    );

    it(
      'lists a subject’s requests that are pending and live at now, oldest first (issue 22 item 10)',
      withStore(open, async (store) => {
        const s = subjectId();
        const first = grantRequest({ subject_id: s, expires_at: at(15) });
        const second = grantRequest({ subject_id: s, expires_at: at(20) });
        const expired = grantRequest({ subject_id: s, expires_at: at(5) });
        const decided = grantRequest({ subject_id: s, status: 'rejected', decided_at: at(1) });
        for (const r of [first, expired, decided, second, grantRequest()]) await store.insertGrantRequest(r);
        assert.deepEqual(await store.listPendingGrantRequestsBySubject(s, at(1)), [first, expired, second]);
        assert.deepEqual(await store.listPendingGrantRequestsBySubject(s, at(5)), [first, second]);
        assert.deepEqual(await store.listPendingGrantRequestsBySubject(s, at(15)), [second]);
        assert.deepEqual(await store.listPendingGrantRequestsBySubject(s, at(20)), []);
        assert.deepEqual(await store.listPendingGrantRequestsBySubject(subjectId(), at(1)), []);
      }),
    );

    it(
      'transitionGrantRequest can move expires_at: a withdrawn request is no longer listed',
      withStore(open, async (store) => {
        const req = grantRequest({ expires_at: at(15) });
        await store.insertGrantRequest(req);
        const withdrawn = await store.transitionGrantRequest(req.grant_request_id, 'pending', {
          expires_at: at(2),
        });
        assert.deepEqual(withdrawn, { ...req, expires_at: at(2) });
        assert.deepEqual(await store.getGrantRequest(req.grant_request_id), withdrawn);
        assert.deepEqual(await store.listPendingGrantRequestsBySubject(req.subject_id, at(1)), [withdrawn]);
        assert.deepEqual(await store.listPendingGrantRequestsBySubject(req.subject_id, at(2)), []);
      }),
    );

    it(
      'pruneGrantRequests removes requests expired before the horizon, whatever their status, in chunks',
      withStore(open, async (store) => {
        const old = [
          grantRequest({ expires_at: at(1) }),
          grantRequest({
            expires_at: at(2),
            status: 'exchanged',
            grant_id: 'ppx:grant:x',
            decided_at: at(1),
          }),
          grantRequest({ expires_at: at(3), status: 'rejected', decided_at: at(1) }),
        ];
        const live = grantRequest({ expires_at: at(10) });
        for (const r of [...old, live]) await store.insertGrantRequest(r);
        assert.equal(await store.pruneGrantRequests(at(10), 2), 2);
        assert.equal(await store.pruneGrantRequests(at(10), 2), 1);
        assert.equal(await store.pruneGrantRequests(at(10), 2), 0);
        for (const r of old) assert.equal(await store.getGrantRequest(r.grant_request_id), undefined);
        assert.deepEqual(await store.getGrantRequest(live.grant_request_id), live);
      }),
    );

    it(
      'pruneUnusedClients removes old self-registered clients no grant or request names (issue 22 item 12)',
      withStore(open, async (store) => {
        const unused = dynamicClient({ client_id: 'dcr_unused', created_at: at(0) });
        const fromDocument = dynamicClient({
          client_id: 'https://app.example/client.json',
          source: 'metadata_document',
          created_at: at(0),
        });
        const granted = dynamicClient({ client_id: 'dcr_granted', created_at: at(0) });
        const asking = dynamicClient({ client_id: 'dcr_asking', created_at: at(0) });
        const recent = dynamicClient({ client_id: 'dcr_recent', created_at: at(60) });
        const operator = publicClient({ client_id: 'operator_app', source: 'operator', created_at: at(0) });
        const legacy = publicClient({ client_id: 'legacy_app', created_at: at(0) });
        for (const c of [unused, fromDocument, granted, asking, recent, operator, legacy])
          await store.putClient(c);
        await store.insertGrant(grant({ grantee_id: granted.client_id }));
        await store.insertGrantRequest(grantRequest({ client_id: asking.client_id }));
        assert.equal(await store.pruneUnusedClients(at(30), 1), 1);
        assert.equal(await store.pruneUnusedClients(at(30), 10), 1);
        assert.equal(await store.pruneUnusedClients(at(30), 10), 0);
        assert.deepEqual(
          (await store.listClients()).map((c) => c.client_id),
          ['dcr_asking', 'dcr_granted', 'dcr_recent', 'legacy_app', 'operator_app'],
        );
      }),
    );

    it(
      'a transition inside a transaction that throws is rolled back',
      withStore(open, async (store) => {
        const req = grantRequest();
        await store.insertGrantRequest(req);
        await assert.rejects(
          store.transaction(async (tx) => {
            const done = await tx.transitionGrantRequest(req.grant_request_id, 'pending', {
              status: 'rejected',
            });
            assert.equal(done?.status, 'rejected');
            assert.equal((await tx.getGrantRequest(req.grant_request_id))?.status, 'rejected');
            throw new Error('undo');
          }),
          /undo/,
        );
        assert.deepEqual(await store.getGrantRequest(req.grant_request_id), req);
      }),
    );
  });
}

function tokenContract(open: () => Promise<Store>): void {
  describe('token families and refresh tokens', () => {
    it(
      'round-trips families and refresh tokens; missing is undefined',
      withStore(open, async (store) => {
        const active = tokenFamily({ grant_ids: ['ppx:grant:b', 'ppx:grant:a'] });
        const revoked = tokenFamily({ status: 'revoked', revoked_at: at(3) });
        await store.insertTokenFamily(active);
        await store.insertTokenFamily(revoked);
        const stored = await store.getTokenFamily(active.family_id);
        assert.deepEqual(stored, active);
        assert.equal('revoked_at' in (stored ?? {}), false);
        assert.deepEqual(await store.getTokenFamily(revoked.family_id), revoked);
        assert.equal(await store.getTokenFamily('fam_missing'), undefined);
        await assert.rejects(store.insertTokenFamily({ ...active, client_id: 'client_other' }));
        assert.deepEqual(await store.getTokenFamily(active.family_id), active);

        const token = refreshToken({ family_id: active.family_id });
        const rotated = refreshToken({ family_id: active.family_id, status: 'rotated' });
        await store.insertRefreshToken(token);
        await store.insertRefreshToken(rotated);
        assert.deepEqual(await store.getRefreshToken(token.token_hash), token);
        assert.deepEqual(await store.getRefreshToken(rotated.token_hash), rotated);
        assert.equal(await store.getRefreshToken('rt_missing'), undefined);
        await assert.rejects(store.insertRefreshToken({ ...token, expires_at: at(1) }));
        assert.deepEqual(await store.getRefreshToken(token.token_hash), token);
      }),
    );

    it(
      'revokeTokenFamily keeps the first revoked_at and is false when missing',
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        assert.equal(await store.revokeTokenFamily(family.family_id, at(5)), true);
        const revoked = { ...family, status: 'revoked' as const, revoked_at: at(5) };
        assert.deepEqual(await store.getTokenFamily(family.family_id), revoked);
        assert.equal(await store.revokeTokenFamily(family.family_id, at(9)), true);
        assert.deepEqual(await store.getTokenFamily(family.family_id), revoked);
        assert.equal(await store.revokeTokenFamily('fam_missing', at(5)), false);
      }),
    );

    it(
      'revokeTokenFamily keeps the reason of the first revocation: a later one neither sets nor rewrites it',
      withStore(open, async (store) => {
        const reused = tokenFamily({ family_id: 'fam_reused' });
        const ended = tokenFamily({ family_id: 'fam_ended' });
        await store.insertTokenFamily(reused);
        await store.insertTokenFamily(ended);
        assert.equal(await store.revokeTokenFamily(reused.family_id, at(5), 'token_reuse'), true);
        await store.revokeTokenFamily(reused.family_id, at(9));
        assert.deepEqual(await store.getTokenFamily(reused.family_id), {
          ...reused,
          status: 'revoked',
          revoked_at: at(5),
          revoked_reason: 'token_reuse',
        });
        await store.revokeTokenFamily(ended.family_id, at(5));
        await store.revokeTokenFamily(ended.family_id, at(9), 'token_reuse');
        assert.deepEqual(await store.getTokenFamily(ended.family_id), {
          ...ended,
          status: 'revoked',
          revoked_at: at(5),
        });
      }),
    );

    it(
      'listTokenFamiliesByGrant lists every family covering a grant, ordered by family_id',
      withStore(open, async (store) => {
        const f = (id: string, grantIds: string[]) =>
          tokenFamily({ family_id: `fam_${id}`, grant_ids: grantIds });
        const c = f('c', ['ppx:grant:1']);
        const a = f('a', ['ppx:grant:2', 'ppx:grant:1', 'ppx:grant:3']);
        const b = f('b', ['ppx:grant:2']);
        for (const family of [c, a, b]) await store.insertTokenFamily(family);
        await store.revokeTokenFamily(c.family_id, at(1));
        const revokedC = { ...c, status: 'revoked' as const, revoked_at: at(1) };
        assert.deepEqual(await store.listTokenFamiliesByGrant('ppx:grant:1'), [a, revokedC]);
        assert.deepEqual(await store.listTokenFamiliesByGrant('ppx:grant:2'), [a, b]);
        assert.deepEqual(await store.listTokenFamiliesByGrant('ppx:grant:3'), [a]);
        assert.deepEqual(await store.listTokenFamiliesByGrant('ppx:grant:missing'), []);
      }),
    );

    it(
      "rotateRefreshToken marks a token kept as a row rotated and starts the family's chain",
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        const old = refreshToken({ family_id: family.family_id });
        await store.insertRefreshToken(old);
        const chain = refreshChain({ family_id: family.family_id, issued_at: at(1) });
        assert.equal(await store.rotateRefreshToken(old.token_hash, chain), true);
        assert.deepEqual(await store.getRefreshToken(old.token_hash), { ...old, status: 'rotated' });
        assert.deepEqual(await store.getRefreshChain(family.family_id), chain);
      }),
    );

    it(
      'rotateRefreshToken is false and writes nothing for a rotated, missing, or revoked-family token',
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        const old = refreshToken({ family_id: family.family_id });
        await store.insertRefreshToken(old);
        const chain = refreshChain({ family_id: family.family_id });
        assert.equal(await store.rotateRefreshToken(old.token_hash, chain), true);

        const replay = refreshChain({ family_id: family.family_id, seed: 'seed_replay', issued_at: at(2) });
        assert.equal(await store.rotateRefreshToken(old.token_hash, replay), false);
        assert.deepEqual(await store.getRefreshChain(family.family_id), chain);
        assert.deepEqual(await store.getRefreshToken(old.token_hash), { ...old, status: 'rotated' });

        const stray = tokenFamily();
        await store.insertTokenFamily(stray);
        assert.equal(
          await store.rotateRefreshToken('rt_missing', refreshChain({ family_id: stray.family_id })),
          false,
        );
        assert.equal(await store.getRefreshChain(stray.family_id), undefined);

        const dead = tokenFamily();
        await store.insertTokenFamily(dead);
        const live = refreshToken({ family_id: dead.family_id });
        await store.insertRefreshToken(live);
        await store.revokeTokenFamily(dead.family_id, at(1));
        assert.equal(
          await store.rotateRefreshToken(live.token_hash, refreshChain({ family_id: dead.family_id })),
          false,
        );
        assert.deepEqual(await store.getRefreshToken(live.token_hash), live);
        assert.equal(await store.getRefreshChain(dead.family_id), undefined);
      }),
    );

    it(
      'of concurrent rotations of one token, exactly one succeeds and the others write nothing',
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        const old = refreshToken({ family_id: family.family_id });
        await store.insertRefreshToken(old);
        const chains = [1, 2, 3].map((n) =>
          refreshChain({ family_id: family.family_id, seed: `seed_${n}`, issued_at: at(n) }),
        );
        const results = await Promise.all(
          chains.map((chain) => store.rotateRefreshToken(old.token_hash, chain)),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.deepEqual(await store.getRefreshChain(family.family_id), chains[results.indexOf(true)]);
        assert.equal((await store.getRefreshToken(old.token_hash))?.status, 'rotated');
      }),
    );

    it(
      'a rotation whose chain cannot be started (the family has one) leaves the old token current',
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        const old = refreshToken({ family_id: family.family_id });
        const existing = refreshChain({ family_id: family.family_id });
        await store.insertRefreshToken(old);
        await store.insertRefreshChain(existing);
        await assert.rejects(
          store.rotateRefreshToken(
            old.token_hash,
            refreshChain({ family_id: family.family_id, issued_at: at(1) }),
          ),
        );
        assert.deepEqual(await store.getRefreshToken(old.token_hash), old);
        assert.deepEqual(await store.getRefreshChain(family.family_id), existing);
      }),
    );

    it(
      'round-trips a refresh chain; a second chain for one family is refused; missing is undefined',
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        const chain = refreshChain({ family_id: family.family_id, generation: 7 });
        await store.insertRefreshChain(chain);
        assert.deepEqual(await store.getRefreshChain(family.family_id), chain);
        await assert.rejects(store.insertRefreshChain({ ...chain, seed: 'seed_other', generation: 0 }));
        assert.deepEqual(await store.getRefreshChain(family.family_id), chain);
        assert.equal(await store.getRefreshChain('fam_missing'), undefined);
      }),
    );

    it(
      'advanceRefreshChain moves the generation on with the new times, only from the current one and while the family is active',
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        const chain = refreshChain({ family_id: family.family_id });
        await store.insertRefreshChain(chain);
        const next = { issued_at: at(1), expires_at: at(100) };
        assert.equal(await store.advanceRefreshChain(family.family_id, 0, next), true);
        const advanced = { ...chain, ...next, generation: 1 };
        assert.deepEqual(await store.getRefreshChain(family.family_id), advanced);

        // A spent generation, one not reached, another family's: nothing written.
        const later = { issued_at: at(2), expires_at: at(200) };
        assert.equal(await store.advanceRefreshChain(family.family_id, 0, later), false);
        assert.equal(await store.advanceRefreshChain(family.family_id, 2, later), false);
        assert.equal(await store.advanceRefreshChain('fam_missing', 1, later), false);
        assert.deepEqual(await store.getRefreshChain(family.family_id), advanced);

        await store.revokeTokenFamily(family.family_id, at(3));
        assert.equal(await store.advanceRefreshChain(family.family_id, 1, later), false);
        assert.deepEqual(await store.getRefreshChain(family.family_id), advanced);
      }),
    );

    it(
      'of concurrent advances of one generation, exactly one succeeds',
      withStore(open, async (store) => {
        const family = tokenFamily();
        await store.insertTokenFamily(family);
        const chain = refreshChain({ family_id: family.family_id, generation: 4 });
        await store.insertRefreshChain(chain);
        const results = await Promise.all(
          [1, 2, 3].map((n) =>
            store.advanceRefreshChain(family.family_id, 4, { issued_at: at(n), expires_at: at(100 + n) }),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        const won = results.indexOf(true) + 1;
        assert.deepEqual(await store.getRefreshChain(family.family_id), {
          ...chain,
          generation: 5,
          issued_at: at(won),
          expires_at: at(100 + won),
        });
      }),
    );
  });
}
