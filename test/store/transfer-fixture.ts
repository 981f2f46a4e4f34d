import type { Store } from '../../src/store/store.ts';
import {
  at,
  auditEvent,
  confidentialClient,
  fullClaim,
  fullGrant,
  grantRequest,
  minimalClaim,
  modifier,
  profileRecord,
  publicClient,
  refreshChain,
  refreshToken,
  session,
  signingKey,
  subject,
  subjectId,
  tokenFamily,
} from '../support/store-records.ts';
import { changeDraft } from './contract-changes.ts';

/**
 * Puts rows into every table of the schema through the Store's own writers (so each side's
 * triggers compute versions and claim shapes as in use), for ppx migrate's tests: a move must carry
 * all of it. Returns the subjects it made.
 */
export async function fillEveryTable(store: Store, subjects = 3): Promise<string[]> {
  const made: string[] = [];
  await store.putSetting('pairwise_secret', 'c2VjcmV0');
  await store.putSetting('provider_note', 'moved: ✓ ünïcode');
  await store.insertSigningKey(signingKey());
  const app = publicClient();
  await store.putClient(app);
  await store.putClient(confidentialClient());
  for (let i = 0; i < subjects; i++) {
    const subjectIdOf = subjectId();
    made.push(subjectIdOf);
    const profile = profileRecord({ subject_id: subjectIdOf });
    await store.insertProfile(profile);
    const claims = [
      fullClaim(),
      minimalClaim(),
      minimalClaim({ namespace: 'fragrance', key: `family_${i}` }),
    ];
    await store.putClaims(profile.profile_id, claims);
    await store.deleteClaims(profile.profile_id, [claims[1]!.claim_id]);
    await store.putModifiers(profile.profile_id, [modifier()]);
    await store.appendClaimHistory([
      {
        claim_id: claims[0]!.claim_id,
        profile_id: profile.profile_id,
        at: at(i),
        claim: claims[0]!,
        change: 'created',
        actor: { kind: 'subject', id: subjectIdOf },
      },
    ]);
    const g = fullGrant({
      subject_id: subjectIdOf,
      profile_id: profile.profile_id,
      grantee_id: app.client_id,
    });
    await store.insertGrant(g);
    await store.markGrantExpiryAnnounced(g.grant_id);
    await store.insertProposal({
      proposal_id: `ppx:proposal:moved-${i}-${subjectIdOf}`,
      profile_id: profile.profile_id,
      grant_id: g.grant_id,
      client_id: app.client_id,
      status: 'pending',
      created_at: at(i),
      claim: minimalClaim({
        source: { kind: 'observed' },
        review: { review_status: 'pending_confirmation' },
      }),
      reason: 'review required',
    });
    await store.insertCrossDomainReview({
      review_id: `ppx:review:moved-${subjectIdOf}`,
      grant_id: g.grant_id,
      grantee_id: app.client_id,
      subject_id: subjectIdOf,
      source_domains: ['fragrance'],
      target_domain: 'travel',
      status: 'pending',
      mapped_keys: ['novelty_tolerance'],
      created_at: at(i),
    });
    const who = subject({ subject_id: subjectIdOf, username: `person-${i}-${subjectIdOf.slice(-6)}` });
    await store.insertSubject(who);
    await store.insertSession(session({ subject_id: subjectIdOf, session_hash: `sess-${subjectIdOf}` }));
    await store.insertPasskey({
      credential_id: `cred-${subjectIdOf}`,
      subject_id: subjectIdOf,
      public_key: 'pQECAyYgASFYIA',
      counter: i,
      transports: ['internal'],
      name: `Key ${i}`,
      created_at: at(i),
      ...(i % 2 === 0 ? { last_used_at: at(i + 1) } : {}),
    });
    await store.insertConsentReceipt({
      receipt_id: `rcpt_${subjectIdOf.slice(-8)}`,
      subject_id: subjectIdOf,
      client_id: app.client_id,
      grant_id: g.grant_id,
      decision: 'approved',
      issued_at: at(i),
      jws: `eyJhbGciOiJFZERTQSJ9.e30.sig-${i}`,
    });
    await store.insertGrantRequest(grantRequest({ subject_id: subjectIdOf, client_id: app.client_id }));
    await store.rememberPairwiseSubject(app.client_id, `pw-${subjectIdOf}`, subjectIdOf);
    const family = tokenFamily({
      subject_id: subjectIdOf,
      client_id: app.client_id,
      grant_ids: [g.grant_id],
    });
    await store.insertTokenFamily(family);
    await store.insertRefreshToken(
      refreshToken({ family_id: family.family_id, token_hash: `rt-${subjectIdOf}` }),
    );
    await store.insertRefreshChain(refreshChain({ family_id: family.family_id, generation: i }));
    await store.appendAudit([
      auditEvent({ subject_id: subjectIdOf, grant_id: g.grant_id }),
      auditEvent({ subject_id: subjectIdOf, grant_id: g.grant_id, claim_keys: ['a', 'b'] }),
    ]);
    await store.appendChange(changeDraft({ subject_id: subjectIdOf, grants: [g.grant_id] }));
    await store.putA2aTask({
      task_id: `task-${subjectIdOf}`,
      owner: g.grant_id,
      context_id: `ctx-${i}`,
      state: 'TASK_STATE_COMPLETED',
      created_at: at(i),
      updated_at: at(i),
      body: JSON.stringify({
        id: `task-${subjectIdOf}`,
        status: { state: 'TASK_STATE_COMPLETED' },
        note: 'prêt ✓',
      }),
    });
  }
  return made;
}
