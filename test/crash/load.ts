import { type Answer, send } from '../support/http-answer.ts';
import type { Material, RoundSize, Subject } from '../support/seed-over-http.ts';
import { CLIENT, decisionFields, proposedClaim } from '../support/surface-requests.ts';

// The load of one crash round: the five kinds of write fired concurrently (proposals by
// grantees, confirmations and rejections by the subject, refresh rotations, revocations, consent
// decisions through the consent form), every answer recorded with what it said, and the server
// killed once `killAfter` writes have been acknowledged, while others are in flight. After the
// kill nothing new is started; what was in flight ends without an answer.

export type Kind = 'proposal' | 'confirmation' | 'refresh' | 'revocation' | 'decision';
export const KINDS: readonly Kind[] = ['proposal', 'confirmation', 'refresh', 'revocation', 'decision'];

/** acked: answered with success; refused: answered with an error; unanswered: no (whole) answer. */
export type State = 'acked' | 'refused' | 'unanswered';

export interface Fired {
  readonly kind: Kind;
  readonly state: State;
  /** What it acted on: a grant, proposal, request id or family index. */
  readonly target: string;
  readonly answer?: Answer;
  /** For an unanswered one: why, and whether that was before the kill (a live server failed it). */
  readonly error?: string;
  readonly beforeKill?: boolean;
}

export interface ProposalFired extends Fired {
  readonly kind: 'proposal';
}
export interface ConfirmationFired extends Fired {
  readonly kind: 'confirmation';
  readonly action: 'confirm' | 'reject';
}
export interface DecisionFired extends Fired {
  readonly kind: 'decision';
  readonly decision: 'approve' | 'reject';
}

/** A family's rotations as the client saw them: the tokens it was given, in order. */
export interface FamilyLog {
  /** The family's tokens as acknowledged: the exchange's first, then each rotation's. */
  readonly tokens: string[];
  /** The token an unanswered rotation presented, if the last one was not answered. */
  inFlight?: string;
}

export interface LoadReport {
  readonly fired: Fired[];
  readonly families: FamilyLog[];
  /** Requests started and not yet answered when the kill was sent. */
  inFlightAtKill: number;
  killed: boolean;
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Refreshes through the OAuth token endpoint or consent-v2's, alternately by family. */
function refresh(base: string, family: number, token: string): Promise<Answer> {
  if (family % 2 === 0) {
    return send(base, '/oauth/token', {
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: CLIENT }),
    });
  }
  return send(base, '/v1/consent/refresh', { body: { client_id: CLIENT, refresh_token: token } });
}

export interface LoadPlan {
  readonly base: string;
  readonly subject: Subject;
  readonly material: Material;
  readonly size: RoundSize;
  readonly rand: () => number;
  /** Requests at once besides the refresh families (each family rotates one request at a time). */
  readonly width: number;
  /**
   * Acknowledged writes after which the kill is armed. It then comes as the `killAfterFires`-th
   * write fired after that is sent (so it does not always come right after an answer went out),
   * or as the last one is, whichever is first: always while that write, at least, is in flight.
   */
  readonly killAfter: number;
  readonly killAfterFires: number;
  readonly kill: () => Promise<void>;
}

/** How many writes a round of `size` fires when nothing is killed. */
export function writesOf(size: RoundSize): number {
  return (
    size.proposers * size.proposalsEach +
    size.confirmations +
    size.families * size.refreshesEach +
    size.revocations +
    size.decisions
  );
}

export async function fireAndKill(plan: LoadPlan): Promise<LoadReport> {
  const { base, subject, material, rand } = plan;
  const report: LoadReport = {
    fired: [],
    families: material.families.map((f) => ({ tokens: [f.refresh] })),
    inFlightAtKill: 0,
    killed: false,
  };
  let acked = 0;
  let inFlight = 0;
  let stopping = false;
  let armed = false;
  let firedSinceArmed = 0;
  let killing: Promise<void> | undefined;
  const killNow = () => {
    if (stopping) return;
    stopping = true;
    report.inFlightAtKill = inFlight;
    report.killed = true;
    killing = plan.kill();
  };

  /** Sends one write and records it; `ok` is the status that acknowledges it. */
  const fire = async <F extends Fired>(
    record: Omit<F, 'state' | 'answer' | 'error' | 'beforeKill'>,
    ok: number,
    request: () => Promise<Answer>,
  ): Promise<Fired> => {
    inFlight++;
    let fired: Fired;
    try {
      const sent = request();
      if (armed && (++firedSinceArmed >= plan.killAfterFires || lastTask())) killNow();
      const answer = await sent;
      fired = { ...record, state: answer.status === ok ? 'acked' : 'refused', answer };
    } catch (e) {
      const error = (e instanceof Error ? `${e.message} ${String(e.cause ?? '')}` : String(e)).trim();
      fired = { ...record, state: 'unanswered', error, beforeKill: !stopping };
    } finally {
      inFlight--;
    }
    report.fired.push(fired);
    if (fired.state === 'acked' && ++acked >= plan.killAfter && !armed) {
      armed = true;
      // Nothing more to fire: kill now, while the writes still unanswered are in flight.
      if (lastTask() && inFlight > 0) killNow();
    }
    return fired;
  };

  const tasks: (() => Promise<unknown>)[] = [];
  material.proposers.forEach((grant, g) => {
    for (let i = 0; i < plan.size.proposalsEach; i++) {
      const claims = [proposedClaim(g * 1000 + i)];
      tasks.push(() =>
        // 202: queued for the subject's review (the grant's policy is review_required).
        fire<ProposalFired>({ kind: 'proposal', target: grant.grantId }, 202, () =>
          send(base, '/v1/profile/propose-updates', { token: grant.access, body: { claims } }),
        ),
      );
    }
  });
  for (const p of material.pending) {
    const action = rand() < 0.7 ? 'confirm' : 'reject';
    tasks.push(() =>
      fire<ConfirmationFired>({ kind: 'confirmation', target: p.proposalId, action }, 200, () =>
        send(base, '/v1/profile/confirm-updates', {
          token: subject.token,
          body: { decisions: [{ proposal_id: p.proposalId, action }] },
        }),
      ),
    );
  }
  for (const grant of material.revocable) {
    tasks.push(() =>
      fire({ kind: 'revocation', target: grant.grantId }, 200, () =>
        send(base, '/v1/consent/revoke', { token: subject.token, body: { grant_id: grant.grantId } }),
      ),
    );
  }
  for (const id of material.requests) {
    const decision = rand() < 0.6 ? 'approve' : 'reject';
    tasks.push(() =>
      fire<DecisionFired>({ kind: 'decision', target: id, decision }, 303, () =>
        send(base, `/consent/${encodeURIComponent(id)}/decision`, {
          body: decisionFields(subject.csrf, decision),
          headers: { cookie: `ppx_session=${subject.session}` },
        }),
      ),
    );
  }
  shuffle(tasks, rand);

  let next = 0;
  /** Every task has been started (the refresh rotations may still fire). */
  const lastTask = () => next >= tasks.length;
  const workers = Array.from({ length: Math.min(plan.width, tasks.length) }, async () => {
    while (!stopping && next < tasks.length) await tasks[next++]?.();
  });
  // Each family rotates one request at a time: two at once would be a replay of one token, which
  // the provider rightly takes for theft.
  const rotations = report.families.map(async (log, f) => {
    for (let i = 0; i < plan.size.refreshesEach && !stopping; i++) {
      const token = log.tokens.at(-1) as string;
      const fired = await fire({ kind: 'refresh', target: String(f) }, 200, () => refresh(base, f, token));
      // Unanswered: the rotation may or may not have committed. Refused: nothing rotated.
      if (fired.state === 'unanswered') log.inFlight = token;
      if (fired.state !== 'acked') break;
      log.tokens.push(fired.answer?.json.refresh_token as string);
    }
  });
  await Promise.all([...workers, ...rotations]);
  // Everything answered before the kill: kill an idle server all the same.
  killNow();
  await killing;
  return report;
}
