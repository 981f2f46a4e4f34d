import { DEFAULTS } from '../../config.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRequestRecord } from '../../model/grant-request.ts';
import type { TxDeps } from '../deps.ts';

// How many consent requests may wait for one person at once (issue 22 item 10, docs/consent-flow.md
// "Pending requests"). Anyone may ask (POST /v1/consent/request takes no token), so without caps
// one script fills the person's page with forms. The counts are of live requests (a request lives
// REQUEST_TTL_SECONDS), read inside the transaction that would add one, so concurrent requests
// cannot both take the last place. A grant package counts once: it is one question to the person.

/** Live consent requests one app may have waiting for one person (the default cap). */
export const PENDING_PER_APP = DEFAULTS.pendingCaps.perApp;
/** Live consent requests one person may have waiting, from every app together (the default cap). */
export const PENDING_PER_PERSON = DEFAULTS.pendingCaps.perPerson;

/** One question waiting for the person: a request, or the requests of one grant package. */
interface Ask {
  readonly client_id: string;
  readonly requests: GrantRequestRecord[];
  /** When the ask stops counting: when its requests expire (together, created together). */
  readonly expires_at: string;
}

/** The person's live asks, oldest first, and those of one app among them. */
async function liveAsks(
  tx: TxDeps,
  subjectId: string,
  clientId: string,
  now: Date,
): Promise<{ asks: Ask[]; ofApp: Ask[] }> {
  const pending = await tx.store.listPendingGrantRequestsBySubject(subjectId, now.toISOString());
  const asks = new Map<string, Ask>();
  for (const r of pending) {
    const key = r.package?.package_id ?? r.grant_request_id;
    const ask = asks.get(key);
    if (ask) ask.requests.push(r);
    else asks.set(key, { client_id: r.client_id, requests: [r], expires_at: r.expires_at });
  }
  const all = [...asks.values()];
  return { asks: all, ofApp: all.filter((a) => a.client_id === clientId) };
}

/** Whole seconds until the earliest of `asks` expires, and a place frees (at least 1). */
function retryAfter(asks: readonly Ask[], now: Date): number {
  const first = Math.min(...asks.map((a) => Date.parse(a.expires_at)));
  return Math.max(1, Math.ceil((first - now.getTime()) / 1000));
}

/**
 * consent-v2 (POST /v1/consent/request): refuses a new ask past either cap, with 429 and the
 * seconds until a place frees. The same answer whether or not the subject exists: requests for a
 * made-up subject are stored and counted like any other, so the answers cannot tell them apart.
 */
export async function refusePastCaps(
  tx: TxDeps,
  subjectId: string,
  clientId: string,
  now: Date,
): Promise<Result<true>> {
  const { perApp, perPerson } = tx.rateLimits.pendingCaps;
  const { asks, ofApp } = await liveAsks(tx, subjectId, clientId, now);
  if (ofApp.length >= perApp) {
    return pastCap(
      `this app already has ${perApp} requests waiting for an answer from this person; ask again when one is answered or has expired`,
      retryAfter(ofApp, now),
    );
  }
  if (asks.length >= perPerson) {
    return pastCap(
      'too many apps are already waiting for an answer from this person; ask again when one is answered or has expired',
      retryAfter(asks, now),
    );
  }
  return ok(true);
}

/**
 * The OAuth authorization endpoint: the person is signed in and asking to connect this app now,
 * so past the app's cap its oldest asks are withdrawn (they expire now) to make room for this one.
 * Past the person's cap, after that, the ask is refused (the endpoint answers
 * `temporarily_unavailable`): withdrawing another app's question is not this app's to do.
 */
export async function makeRoomForOAuth(
  tx: TxDeps,
  subjectId: string,
  clientId: string,
  now: Date,
): Promise<Result<true>> {
  const { perApp, perPerson } = tx.rateLimits.pendingCaps;
  const { asks, ofApp } = await liveAsks(tx, subjectId, clientId, now);
  const withdrawn = ofApp.slice(0, Math.max(0, ofApp.length - (perApp - 1)));
  for (const ask of withdrawn) {
    for (const r of ask.requests) {
      await tx.store.transitionGrantRequest(r.grant_request_id, 'pending', { expires_at: now.toISOString() });
    }
  }
  if (asks.length - withdrawn.length >= perPerson) {
    return pastCap(
      'too many apps are already waiting for an answer from you; answer some of them in your preferences, or try again later',
      retryAfter(asks, now),
    );
  }
  return ok(true);
}

function pastCap(description: string, retryAfterSeconds: number) {
  return fail('rate_limited', description, { retryAfterSeconds });
}
