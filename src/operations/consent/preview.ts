import { type Claim, qualifiedKey } from '../../model/claim.ts';
import {
  appWords,
  type ClientRecord,
  type ClientStanding,
  clientStanding,
  type ShownApp,
  shownClientName,
} from '../../model/client.ts';
import type { ConsentGrant } from '../../model/consent-grant.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { GrantRequestDraft, GrantRequestRecord } from '../../model/grant-request.ts';
import { type Narrowing, narrowDraft } from '../../policy/narrowing.ts';
import { shownApps } from '../accounts/shown-apps.ts';
import type { Caller } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';
import { loadVisibleProfile } from '../reads/visible-profile.ts';
import { pendingRequestFor } from './decide.ts';
import { pendingPackageFor } from './package-decision.ts';

// What the consent page shows before the subject decides: the pending request (or package), and
// which claims a draft — as asked or as the subject would narrow it — would expose, computed by
// the same read path a grantee's token goes through.

/** Operations under which a grantee receives claims (the profile reads and the export). */
const READING_OPERATIONS = ['read', 'query', 'export'] as const;

export interface ConsentView {
  readonly request: GrantRequestRecord;
  readonly client: ClientRecord | undefined;
  /**
   * The redirect URI the browser returns to is still registered for the client. A back-channel
   * request (no redirect URI) sends the browser nowhere: verified while the client is known.
   */
  readonly redirectVerified: boolean;
  /** Who vouches for the client's name and redirect (model/client.ts); undefined when unknown. */
  readonly standing: ClientStanding | undefined;
  /** How the app is named (model/client.ts#shownApp); undefined when unknown. */
  readonly app: ShownApp | undefined;
  /**
   * Set when the request is one element of a grant package: every element, in the order of
   * the client's authorization_details (the request itself among them). They are decided together.
   */
  readonly members?: readonly GrantRequestRecord[];
}

/** The pending request (or package) the signed-in subject may decide on, with its client. */
export async function loadConsentView(
  deps: Deps,
  subjectId: string,
  grantRequestId: string,
): Promise<Result<ConsentView>> {
  const caller: Caller = { kind: 'subject', subjectId };
  const found = await pendingRequestFor(deps, caller, grantRequestId);
  if (!found.ok) return found;
  const request = found.value;
  const stored = await deps.store.getClient(request.client_id);
  // The pages show the name as shownClientName makes it (no bidi tricks, no invisible characters).
  const client = stored && { ...stored, name: shownClientName(stored.name) };
  const view = {
    request,
    client,
    redirectVerified:
      client !== undefined &&
      (request.redirect_uri === undefined || client.redirect_uris.includes(request.redirect_uri)),
    standing: client && clientStanding(client, request.redirect_uri),
    app: (await shownApps(deps, [request.client_id])).get(request.client_id),
  };
  if (!request.package) return ok(view);
  const members = await pendingPackageFor(deps, caller, request.package.package_id);
  if (!members.ok) return members;
  const order = (m: GrantRequestRecord) => m.package?.index ?? 0;
  return ok({ ...view, members: [...members.value].sort((a, b) => order(a) - order(b)) });
}

/** The app a sign-in is for, as the sign-in page names it. */
export interface AskingApp {
  readonly app: ShownApp;
  readonly standing: ClientStanding;
}

/**
 * The app behind a sign-in: the client of a pending, unexpired consent request, or the client
 * an authorization request names (already checked and stored by the authorize endpoint). Only
 * the app's name and standing: before sign-in nothing of the request itself is told. Request
 * ids are 128 random bits held by the client and the person's browser, so naming the app tells
 * a visitor no more than the link they were given.
 */
export async function askingApp(
  deps: Deps,
  where: { readonly grantRequestId: string } | { readonly clientId: string; readonly redirectUri?: string },
): Promise<AskingApp | undefined> {
  let clientId: string;
  let redirectUri: string | undefined;
  if ('grantRequestId' in where) {
    const request = await deps.store.getGrantRequest(where.grantRequestId);
    if (request?.status !== 'pending') return undefined;
    if (Date.parse(request.expires_at) <= deps.clock().getTime()) return undefined;
    clientId = request.client_id;
    redirectUri = request.redirect_uri;
  } else {
    clientId = where.clientId;
    redirectUri = where.redirectUri;
  }
  const client = await deps.store.getClient(clientId);
  const app = (await shownApps(deps, [clientId])).get(clientId);
  if (!client || !app) return undefined;
  // RFC 6749 §3.1.2.3: without redirect_uri, the client's only registered one is used.
  const redirect = redirectUri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  return { app, standing: clientStanding(client, redirect) };
}

/** What the provider's closing page tells the subject about a request it decided. */
export interface DecisionOutcome {
  readonly outcome: 'pending' | 'allowed' | 'refused';
  readonly clientName: string;
}

/**
 * The outcome of a request, for the subject it names only (anyone else learns nothing, not even
 * that it exists). A back-channel request's decision ends on the page that shows it.
 */
export async function decisionOutcomeFor(
  deps: Deps,
  subjectId: string,
  grantRequestId: string,
): Promise<DecisionOutcome | undefined> {
  const request = await deps.store.getGrantRequest(grantRequestId);
  if (!request || request.subject_id !== subjectId) return undefined;
  const app = (await shownApps(deps, [request.client_id])).get(request.client_id);
  const outcome =
    request.status === 'pending' ? 'pending' : request.status === 'rejected' ? 'refused' : 'allowed';
  // Named as every page names it: with its host unless the operator registered it.
  return { outcome, clientName: app ? appWords(app) : shownClientName(request.client_id) };
}

export interface Exposure {
  /** The claims the client could read under the draft, exactly as the read path would filter. */
  readonly visible: Claim[];
  /** How many of the subject's claims stay hidden. */
  readonly hidden: number;
}

/**
 * Which of the subject's claims a grant built from `draft` would expose. The draft becomes a
 * grant-like record and goes through the same read path a grantee's token would.
 */
export async function exposureOf(
  deps: Deps,
  request: GrantRequestRecord,
  draft: GrantRequestDraft,
): Promise<Result<Exposure>> {
  const owner = await loadVisibleProfile(
    deps,
    { kind: 'subject', subjectId: request.subject_id },
    { operation: 'read' },
    'read',
  );
  if (!owner.ok) return owner.error.code === 'not_found' ? ok({ visible: [], hidden: 0 }) : owner;
  const all = owner.value.claims.filter((c) => c.review?.review_status !== 'rejected');
  const readOp = READING_OPERATIONS.find((op) => draft.allowed_operations.includes(op));
  if (readOp === undefined || !owner.value.profile) return ok({ visible: [], hidden: all.length });

  const grant = previewGrant(request, draft, owner.value.profile.profile_id, deps.clock());
  const visible = await loadVisibleProfile(
    deps,
    { kind: 'grant', clientId: request.client_id, grant },
    { operation: readOp },
    'read',
  );
  if (!visible.ok) return fail(visible.error.code, visible.error.description);
  const shown = new Set(visible.value.claims.map((c) => c.claim_id));
  return ok({
    visible: sortClaims(visible.value.claims),
    hidden: all.filter((c) => !shown.has(c.claim_id)).length,
  });
}

function previewGrant(
  request: GrantRequestRecord,
  draft: GrantRequestDraft,
  profileId: string,
  now: Date,
): GrantRecord {
  return {
    grant_id: 'ppx:grant:consent-preview',
    subject_id: request.subject_id,
    grantee_id: request.client_id,
    status: 'active',
    granted_at: now.toISOString(),
    expires_at: draft.expires_at,
    purposes: [...draft.purposes] as ConsentGrant['purposes'],
    allowed_domains: [...draft.allowed_domains],
    allowed_namespaces: [...draft.allowed_namespaces],
    ...(draft.allowed_claim_keys ? { allowed_claim_keys: [...draft.allowed_claim_keys] } : {}),
    allowed_operations: [...draft.allowed_operations] as ConsentGrant['allowed_operations'],
    cross_domain_transfer: draft.cross_domain_transfer as ConsentGrant['cross_domain_transfer'],
    writeback_policy: draft.writeback_policy as ConsentGrant['writeback_policy'],
    profile_id: profileId,
    access_mode: draft.access_mode,
  };
}

function sortClaims(claims: readonly Claim[]): Claim[] {
  const rank = (c: Claim) => (c.namespace === 'core' ? 0 : 1);
  return [...claims].sort((a, b) => rank(a) - rank(b) || qualifiedKey(a).localeCompare(qualifiedKey(b)));
}

/** The draft as the subject would narrow it, checked by the same rules the approval applies. */
export function previewNarrowing(
  draft: GrantRequestDraft,
  narrow: Narrowing,
  now: Date,
): Result<GrantRequestDraft> {
  return narrowDraft(draft, narrow, now);
}

/** What the consent page may offer for a policy the client asked for (policy/narrowing.ts). */
export { allowedNarrowings } from './narrowing-choices.ts';
