import { must } from './http-answer.ts';
import { CLIENT, consentAskBody, pkcePair, proposedClaim } from './surface-requests.ts';

// What one crash round works on, made over HTTP the way clients make it before the load starts:
// grants through the consent flow (request → the subject approves → exchange, so each has an
// access token and a refresh family), proposals queued for review under grants that may propose,
// and consent requests left pending for the consent form.

/** How much of each kind one round seeds and fires. */
export interface RoundSize {
  /** Grants that propose during the load; each fires `proposalsEach` proposals. */
  readonly proposers: number;
  readonly proposalsEach: number;
  /** Pending proposals seeded for the load to confirm or reject, one per request. */
  readonly confirmations: number;
  /** Refresh families; each is rotated up to `refreshesEach` times, one rotation after the other. */
  readonly families: number;
  readonly refreshesEach: number;
  /** Grants the load revokes (each with its own refresh family). */
  readonly revocations: number;
  /** Consent requests the load decides through the consent form. */
  readonly decisions: number;
}

export interface SeededGrant {
  readonly grantId: string;
  readonly access: string;
  readonly refresh: string;
}

export interface SeededProposal {
  readonly proposalId: string;
  readonly claimId: string;
  /** The grant that proposed it. */
  readonly grantId: string;
}

export interface Material {
  readonly proposers: readonly SeededGrant[];
  readonly pending: readonly SeededProposal[];
  readonly families: readonly SeededGrant[];
  readonly revocable: readonly SeededGrant[];
  readonly requests: readonly string[];
}

/** Who acts for the person: their API token, and a signed-in session for the consent form. */
export interface Subject {
  readonly token: string;
  readonly session: string;
  readonly csrf: string;
}

/** A pending consent request of the demo client; resolves to its id. */
export async function pendingRequest(base: string): Promise<string> {
  const r = await must(base, '/v1/consent/request', { body: consentAskBody(pkcePair().challenge) }, 201);
  return r.json.grant_request_id as string;
}

/** A grant through the whole consent flow: its access token and the first token of its family. */
export async function grantThroughConsent(
  base: string,
  subjectToken: string,
  operations: readonly string[] = ['read', 'query'],
  writeback = 'forbidden',
): Promise<SeededGrant> {
  const pkce = pkcePair();
  const asked = await must(
    base,
    '/v1/consent/request',
    { body: consentAskBody(pkce.challenge, operations, writeback) },
    201,
  );
  const id = asked.json.grant_request_id as string;
  await must(base, '/v1/consent/approve', { token: subjectToken, body: { grant_request_id: id } }, 200);
  const t = await must(
    base,
    '/v1/consent/token',
    {
      body: {
        grant_request_id: id,
        request_token: asked.json.request_token,
        code_verifier: pkce.verifier,
        client_id: CLIENT,
      },
    },
    200,
  );
  return { grantId: t.json.grant_id, access: t.json.access_token, refresh: t.json.refresh_token };
}

/** Runs `make` `n` times, `width` at a time. */
async function many<T>(n: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

/** Seeds a round's material (`size`); a few requests at a time, as clients would. */
export async function seedRound(base: string, subject: Subject, size: RoundSize): Promise<Material> {
  const width = 8;
  const proposers = await many(size.proposers, width, () =>
    grantThroughConsent(base, subject.token, ['read', 'query', 'propose_update'], 'review_required'),
  );
  const families = await many(size.families, width, () => grantThroughConsent(base, subject.token));
  const revocable = await many(size.revocations, width, () => grantThroughConsent(base, subject.token));
  const requests = await many(size.decisions, width, () => pendingRequest(base));
  // The proposals to decide, queued by the proposers (one key may be proposed once a request).
  const pending = await many(size.confirmations, width, async (n): Promise<SeededProposal> => {
    const by = proposers[n % proposers.length];
    if (!by) throw new Error('seeding proposals needs at least one proposer');
    const r = await must(
      base,
      '/v1/profile/propose-updates',
      { token: by.access, body: { claims: [proposedClaim(n)] } },
      202,
    );
    const p = r.json.proposals[0] as { proposal_id: string; claim_id: string; status: string };
    if (p.status !== 'pending') throw new Error(`a seeded proposal was ${p.status}, not pending`);
    return { proposalId: p.proposal_id, claimId: p.claim_id, grantId: by.grantId };
  });
  return { proposers, pending, families, revocable, requests };
}
