import { parseChainToken } from '../../src/auth/refresh-chain.ts';
import type { ChangeEvent, ChangeKind } from '../../src/model/change-event.ts';
import type { Deps } from '../../src/operations/deps.ts';
import { DEMO_SUBJECT } from '../../src/operations/seed/demo-profile.ts';
import { send } from '../support/http-answer.ts';
import type { Material, SeededGrant, Subject } from '../support/seed-over-http.ts';
import { CLIENT, REDIRECT } from '../support/surface-requests.ts';
import type { ConfirmationFired, DecisionFired, Fired, LoadReport } from './load.ts';
import type { CrashStore } from './stores.ts';

// What must hold after a kill and a restart (docs/crash-safety.md), checked against the store
// (opened beside the restarted server) and over HTTP: every acknowledged write is there, no
// revoked grant works, every refresh family has exactly one live token (the last one its client
// was given, or the successor of a rotation that was cut off), and the outbox holds an event for
// every write, acknowledged or not, that committed. Each check counts what it passed and says
// what it did not.

export interface CheckCount {
  passed: number;
  readonly failures: string[];
}

export class Checks {
  readonly byName = new Map<string, CheckCount>();
  /** Writes cut off by the kill (no answer) that turned out to have committed. */
  committedUnanswered = 0;

  check(name: string, ok: boolean, failure: string): void {
    let count = this.byName.get(name);
    if (count === undefined) {
      count = { passed: 0, failures: [] };
      this.byName.set(name, count);
    }
    if (ok) count.passed++;
    else count.failures.push(failure);
  }

  get passed(): number {
    return [...this.byName.values()].reduce((n, c) => n + c.passed, 0);
  }

  get failures(): string[] {
    return [...this.byName].flatMap(([name, c]) => c.failures.map((f) => `${name}: ${f}`));
  }
}

/** The subject's whole outbox, in seq order. */
async function allChanges(deps: Deps): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  for (;;) {
    const page = await deps.store.listChanges({
      after: out.at(-1)?.seq ?? 0,
      subjectId: DEMO_SUBJECT,
      limit: 1000,
    });
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

/** Finds events by kind and the ids they name. */
class Outbox {
  readonly #byKind = new Map<ChangeKind, ChangeEvent[]>();
  readonly events: readonly ChangeEvent[];

  constructor(events: readonly ChangeEvent[]) {
    this.events = events;
    for (const e of events) this.#byKind.set(e.kind, [...(this.#byKind.get(e.kind) ?? []), e]);
  }

  has(kind: ChangeKind, test: (e: ChangeEvent) => boolean): boolean {
    return (this.#byKind.get(kind) ?? []).some(test);
  }

  names(kind: ChangeKind, list: keyof ChangeEvent['ids'], id: string): boolean {
    return this.has(kind, (e) => e.ids[list]?.includes(id) === true);
  }
}

export interface RoundFacts {
  readonly base: string;
  readonly store: CrashStore;
  readonly deps: Deps;
  readonly subject: Subject;
  readonly material: Material;
  readonly load: LoadReport;
}

const acked = <F extends Fired>(load: LoadReport, kind: F['kind']): F[] =>
  load.fired.filter((f): f is F => f.kind === kind && f.state === 'acked');

export async function checkRound(facts: RoundFacts): Promise<Checks> {
  const checks = new Checks();
  const { base, deps, load, material, subject } = facts;
  const store = deps.store;

  // Before the kill every write is answered with success; after it, none is answered at all.
  for (const f of load.fired) {
    checks.check(
      'answers',
      f.state === 'acked' || (f.state === 'unanswered' && f.beforeKill !== true),
      f.state === 'refused'
        ? `${f.kind} ${f.target} refused ${f.answer?.status}: ${f.answer?.text.slice(0, 200)}`
        : `${f.kind} ${f.target} unanswered while the server was up: ${f.error}`,
    );
  }

  const outbox = new Outbox(await allChanges(deps));
  const seqs = outbox.events.map((e) => e.seq);
  checks.check(
    'change events',
    seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number)),
    'the outbox seqs are not strictly increasing',
  );
  const profile = await store.getProfileBySubject(DEMO_SUBJECT);
  if (!profile) throw new Error('the demo profile is gone');

  // Proposals: each acknowledged one is stored, pending, with its event.
  for (const f of acked(load, 'proposal')) {
    for (const p of (f.answer?.json.proposals ?? []) as { proposal_id: string; status: string }[]) {
      const stored = await store.getProposal(p.proposal_id);
      checks.check('proposals stored', stored?.status === 'pending', `${p.proposal_id} is ${stored?.status}`);
      checks.check(
        'change events',
        outbox.names('proposal_created', 'proposal_ids', p.proposal_id),
        `no proposal_created for acknowledged ${p.proposal_id}`,
      );
    }
  }
  // Whatever committed, acknowledged or not, has its event.
  const proposals = await store.listProposals(profile.profile_id);
  for (const g of material.proposers) {
    const stored = proposals.filter((p) => p.grant_id === g.grantId).length;
    const seeded = material.pending.filter((p) => p.grantId === g.grantId).length;
    const answered = acked(load, 'proposal').filter((f) => f.target === g.grantId).length;
    const cut = load.fired.filter(
      (f) => f.kind === 'proposal' && f.target === g.grantId && f.state === 'unanswered',
    );
    checks.check(
      'proposals stored',
      stored >= seeded + answered && stored <= seeded + answered + cut.length,
      `${g.grantId}: ${stored} proposals stored, ${seeded} seeded + ${answered} acknowledged + ${cut.length} cut off`,
    );
    checks.committedUnanswered += Math.max(0, stored - seeded - answered);
  }
  for (const p of proposals) {
    checks.check(
      'change events',
      outbox.names('proposal_created', 'proposal_ids', p.proposal_id),
      `no proposal_created for stored ${p.proposal_id}`,
    );
    if (p.status === 'confirmed' || p.status === 'rejected') {
      checks.check(
        'change events',
        outbox.names('proposal_decided', 'proposal_ids', p.proposal_id),
        `no proposal_decided for ${p.status} ${p.proposal_id}`,
      );
    }
  }

  // Confirmations: each acknowledged decision applied, the claim written, both events there.
  const claimIds = new Set((await store.listClaims(profile.profile_id)).map((c) => c.claim_id));
  for (const f of load.fired.filter((f) => f.kind === 'confirmation' && f.state === 'unanswered')) {
    if ((await store.getProposal(f.target))?.status !== 'pending') checks.committedUnanswered++;
  }
  for (const f of acked<ConfirmationFired>(load, 'confirmation')) {
    const stored = await store.getProposal(f.target);
    const want = f.action === 'confirm' ? 'confirmed' : 'rejected';
    checks.check(
      'confirmations applied',
      stored?.status === want,
      `${f.target} is ${stored?.status}, not ${want}`,
    );
    checks.check(
      'change events',
      outbox.names('proposal_decided', 'proposal_ids', f.target),
      `no proposal_decided for acknowledged ${f.target}`,
    );
    if (f.action === 'confirm') {
      const claimId = stored?.applied_claim_id ?? '';
      checks.check('confirmations applied', claimIds.has(claimId), `${f.target}: claim ${claimId} missing`);
      checks.check(
        'change events',
        outbox.names('claims_written', 'claim_ids', claimId),
        `no claims_written for ${claimId} (${f.target})`,
      );
    }
  }

  // Revocations: each acknowledged one effective in the store, over HTTP and in the outbox.
  const listed = await send(base, '/v1/consent/grants', { token: subject.token });
  const listedStatus = new Map(
    (listed.json.grants as { grant_id: string; status: string }[]).map((g) => [g.grant_id, g.status]),
  );
  const revokedAcked = new Set(acked(load, 'revocation').map((f) => f.target));
  for (const grantId of revokedAcked) {
    const grant = await store.getGrant(grantId);
    checks.check('revocations effective', grant?.status === 'revoked', `${grantId} is ${grant?.status}`);
    checks.check(
      'revocations effective',
      listedStatus.get(grantId) === 'revoked',
      `${grantId} listed as ${listedStatus.get(grantId)}`,
    );
  }
  for (const g of material.revocable) {
    const grant = await store.getGrant(g.grantId);
    const cut = load.fired.some(
      (f) => f.kind === 'revocation' && f.target === g.grantId && f.state === 'unanswered',
    );
    if (cut && grant?.status === 'revoked') checks.committedUnanswered++;
    // The revocation and its audit event commit together: one event for a revoked grant, none else.
    const audit = await store.listAudit({
      subject_id: DEMO_SUBJECT,
      grant_id: g.grantId,
      action: 'revoke',
      limit: 10,
    });
    checks.check(
      'audit trail',
      audit.events.length === (grant?.status === 'revoked' ? 1 : 0),
      `${g.grantId} (${grant?.status}) has ${audit.events.length} revoke audit events`,
    );
  }

  // No revoked grant works, acknowledged or not; a grant not revoked still does.
  const grants: SeededGrant[] = [...material.proposers, ...material.families, ...material.revocable];
  for (const g of grants) {
    const grant = await store.getGrant(g.grantId);
    const revoked = grant?.status === 'revoked';
    const read = await send(base, '/v1/profile/effective', { token: g.access, body: {} });
    checks.check(
      'no revoked grant active',
      read.status === (revoked ? 401 : 200),
      `${g.grantId} (${grant?.status}) read answered ${read.status}`,
    );
    checks.check(
      'no revoked grant active',
      listedStatus.get(g.grantId) === grant?.status,
      `${g.grantId} is ${grant?.status} in the store, listed as ${listedStatus.get(g.grantId)}`,
    );
    if (!revoked) continue;
    checks.check(
      'change events',
      outbox.has('grant_revoked', (e) => e.grants.includes(g.grantId)),
      `no grant_revoked for ${g.grantId}${revokedAcked.has(g.grantId) ? ' (acknowledged)' : ''}`,
    );
    for (const family of await store.listTokenFamiliesByGrant(g.grantId)) {
      checks.check(
        'no revoked grant active',
        family.status === 'revoked',
        `${g.grantId} revoked, its family ${family.family_id} ${family.status}`,
      );
      checks.check(
        'change events',
        outbox.names('refresh_family_ended', 'family_ids', family.family_id),
        `no refresh_family_ended for ${family.family_id} of revoked ${g.grantId}`,
      );
    }
  }

  // Consent decisions: each acknowledged one recorded; an approval has its grant; events.
  const decided = new Map(acked<DecisionFired>(load, 'decision').map((f) => [f.target, f.decision]));
  for (const f of acked<DecisionFired>(load, 'decision')) {
    // The form's answer sends the browser back to the client with the outcome.
    checks.check(
      'consent decisions recorded',
      f.answer?.location?.startsWith(`${REDIRECT}?`) === true,
      `${f.target}: the decision redirected to ${f.answer?.location}`,
    );
  }
  for (const id of material.requests) {
    const request = await store.getGrantRequest(id);
    const wanted = decided.get(id);
    if (wanted !== undefined) {
      const want = wanted === 'approve' ? 'approved' : 'rejected';
      checks.check(
        'consent decisions recorded',
        request?.status === want,
        `${id} is ${request?.status}, not ${want}`,
      );
    } else if (
      request?.status !== 'pending' &&
      load.fired.some((f) => f.kind === 'decision' && f.target === id)
    ) {
      checks.committedUnanswered++;
    }
    if (request?.status === 'pending' || request === undefined) continue;
    checks.check(
      'change events',
      outbox.names('consent_decided', 'grant_request_ids', id),
      `no consent_decided for ${request.status} ${id}${wanted ? ' (acknowledged)' : ''}`,
    );
    if (request.status !== 'approved') continue;
    const grant = request.grant_id === undefined ? undefined : await store.getGrant(request.grant_id);
    checks.check(
      'consent decisions recorded',
      grant?.status === 'active',
      `approved ${id}: its grant ${request.grant_id} is ${grant?.status}`,
    );
    checks.check(
      'change events',
      outbox.has('grant_created', (e) => e.grants.includes(request.grant_id ?? '')),
      `no grant_created for ${request.grant_id} of approved ${id}`,
    );
  }

  await checkFamilies(checks, facts);
  return checks;
}

/**
 * Each refresh family (a refresh chain, auth/refresh-chain.ts): the tokens its client was given
 * are its generations in order, and the chain's current generation is the last one given or, when
 * the last rotation was cut off by the kill, that rotation's successor (then the last one given is
 * spent); every earlier token is spent by being below it. Then over HTTP: the live token rotates
 * after the restart (when the client has it) and a spent one is refused, which ends the family
 * (reuse detection).
 */
async function checkFamilies(checks: Checks, facts: RoundFacts): Promise<void> {
  const { base, deps, load, material } = facts;
  for (const [i, log] of load.families.entries()) {
    const given = log.tokens.map((t) => parseChainToken(t));
    const familyId = given[0]?.familyId ?? '';
    checks.check(
      'refresh families whole',
      given.every((t, n) => t?.familyId === familyId && t.generation === n),
      `family ${familyId}: the tokens given out are not its generations 0 to ${log.tokens.length - 1} in order`,
    );
    const family = await deps.store.getTokenFamily(familyId);
    const chain = await deps.store.getRefreshChain(familyId);
    const lastGiven = log.tokens.length - 1;
    const current = family?.status === 'active' ? chain?.generation : undefined;
    const cutOff = log.inFlight !== undefined && current === lastGiven + 1;
    checks.check(
      'refresh families whole',
      current === lastGiven || cutOff,
      `family ${familyId} (${family?.status}): its current generation is ${current}, the last given out ${lastGiven}`,
    );
    // Each rotation and its audit event commit together.
    const rotations = log.tokens.length - 1 + (cutOff ? 1 : 0);
    const grantId = material.families[i]?.grantId ?? '';
    const audit = await deps.store.listAudit({
      subject_id: DEMO_SUBJECT,
      grant_id: grantId,
      action: 'token_refreshed',
      limit: 500,
    });
    checks.check(
      'audit trail',
      audit.events.length === rotations,
      `family ${familyId}: ${audit.events.length} token_refreshed audit events for ${rotations} rotations`,
    );

    // Over HTTP, after the restart.
    const oauth = i % 2 === 0;
    const present = (token: string) =>
      oauth
        ? send(base, '/oauth/token', {
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              refresh_token: token,
              client_id: CLIENT,
            }),
          })
        : send(base, '/v1/consent/refresh', { body: { client_id: CLIENT, refresh_token: token } });
    let spent: string | undefined;
    if (current === lastGiven) {
      const rotated = await present(log.tokens.at(-1) as string);
      checks.check(
        'old refresh tokens refused',
        rotated.status === 200,
        `family ${familyId}: the live token was answered ${rotated.status} after the restart`,
      );
      spent = log.tokens.at(-1);
    } else {
      spent = log.tokens.at(-1);
    }
    if (spent === undefined) continue;
    const replay = await present(spent);
    checks.check(
      'old refresh tokens refused',
      replay.status === 400 && replay.json?.error === 'invalid_grant',
      `family ${familyId}: a spent token was answered ${replay.status} ${replay.text.slice(0, 120)}`,
    );
    const after = await deps.store.getTokenFamily(familyId);
    checks.check(
      'old refresh tokens refused',
      after?.status === 'revoked',
      `family ${familyId}: a spent token presented again left the family ${after?.status}`,
    );
  }
}
