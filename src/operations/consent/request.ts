import { z } from 'zod';
import { PAIRWISE_SUBJECT_PREFIX } from '../../auth/pairwise.ts';
import { S256_CHALLENGE } from '../../auth/pkce.ts';
import { randomToken, sha256 } from '../../auth/secrets.ts';
import { namespaceOfKey, normalizeKey } from '../../model/claim.ts';
import type { ClientRecord } from '../../model/client.ts';
import { AccessMode } from '../../model/consent-grant.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import {
  isSupportedNamespace,
  unregisteredKeys,
  unregisteredKeysProblem,
} from '../../model/extensions/index.ts';
import type { GrantRequestDraft, GrantRequestRecord, PackageMembership } from '../../model/grant-request.ts';
import {
  CrossDomainTransfer,
  MS_PER_DAY,
  Operation,
  Purpose,
  WritebackPolicy,
} from '../../model/vocabulary.ts';
import { announce } from '../changes.ts';
import type { AnyDeps } from '../deps.ts';
import { inTransactionUnlessFailed } from '../transaction.ts';
import { refusePastCaps } from './pending-caps.ts';

/** How long a consent request may wait for the subject's decision and the exchange. */
export const REQUEST_TTL_SECONDS = 15 * 60;

const Names = z.array(z.string().min(1).max(200)).min(1).max(100);

/** POST /v1/consent/request (WIRE-NOTES §2.1). */
export const ConsentRequestInput = z.strictObject({
  client_id: z.string().min(1).max(200),
  subject_id: z.string().min(1).max(300),
  purposes: z.array(Purpose).min(1),
  allowed_domains: Names,
  allowed_namespaces: Names,
  allowed_claim_keys: Names.optional(),
  allowed_operations: z.array(Operation).min(1),
  cross_domain_transfer: CrossDomainTransfer.default('deny'),
  writeback_policy: WritebackPolicy.default('review_required'),
  requested_duration_days: z.int().min(1).max(365).default(30),
  access_mode: AccessMode.default('continuous'),
  redirect_uri: z.url().max(2000).optional(),
  code_challenge: z.string().max(200).optional(),
  code_challenge_method: z.string().max(20).optional(),
});
export type ConsentRequestInput = z.input<typeof ConsentRequestInput>;

export interface ConsentRequestCreated {
  readonly grant_request_id: string;
  readonly status: 'pending';
  readonly consent_url: string;
  /** The capability to exchange the approved request: returned this once, stored only hashed. */
  readonly request_token: string;
  readonly expires_at: string;
}

/**
 * Records what a client asks for. The request carries no authority until the subject approves
 * it on the consent page, and even then only the holder of the request token and the PKCE
 * verifier can exchange it.
 */
export async function requestConsent(
  deps: AnyDeps,
  input: z.output<typeof ConsentRequestInput>,
  /** Set when the request is one element of a grant package (WIRE-NOTES §4). */
  membership?: PackageMembership,
  /**
   * How the request finds a place among the person's pending ones (pending-caps.ts): refused past
   * a cap, or the caller (the OAuth authorization endpoint) has made room in this transaction.
   */
  room: 'refuse_past_caps' | 'made_by_caller' = 'refuse_past_caps',
): Promise<Result<ConsentRequestCreated>> {
  const client = await deps.store.getClient(input.client_id);
  if (!client)
    return fail('unknown_client', `client "${input.client_id}" is not registered with this provider`);
  const redirect = registeredRedirect(client, input.redirect_uri);
  if (!redirect.ok) return redirect;
  if (input.code_challenge === undefined)
    return fail('invalid_request', 'code_challenge is required (PKCE S256)');
  if (input.code_challenge_method !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256; plain is not accepted');
  }
  if (!S256_CHALLENGE.test(input.code_challenge)) {
    return fail(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the verifier (43 characters)',
    );
  }
  const scope = checkScope(input);
  if (!scope.ok) return scope;

  const now = deps.clock();
  const requestToken = randomToken();
  const record: GrantRequestRecord = {
    grant_request_id: `gr_${randomToken(16)}`,
    request_token_hash: sha256(requestToken),
    client_id: input.client_id,
    subject_id: await subjectNamed(deps, input.client_id, input.subject_id),
    draft: draftOf(input, now),
    ...(redirect.value !== undefined ? { redirect_uri: redirect.value } : {}),
    code_challenge: input.code_challenge,
    status: 'pending',
    ...(membership ? { package: membership } : {}),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + REQUEST_TTL_SECONDS * 1000).toISOString(),
  };
  const stored = await inTransactionUnlessFailed(deps, async (tx) => {
    if (room === 'refuse_past_caps') {
      const placed = await refusePastCaps(tx, record.subject_id, record.client_id, now);
      if (!placed.ok) return placed;
    }
    await tx.store.insertGrantRequest(record);
    await announce(tx, record.subject_id, 'consent_requested', {
      grant_request_ids: [record.grant_request_id],
    });
    return ok(true);
  });
  if (!stored.ok) return stored;
  return ok({
    grant_request_id: record.grant_request_id,
    status: 'pending',
    consent_url: consentUrl(deps, record.grant_request_id),
    request_token: requestToken,
    expires_at: record.expires_at,
  });
}

/**
 * The redirect URI a request returns to (WIRE-NOTES §2.1). Named: it must be one the client
 * registered, compared as an exact string (OAuth 2.1 §4.1.1). Not named: the client's only
 * registered URI (RFC 6749 §3.1.2.3; OAuth 2.1 §4.1.1 makes it optional exactly then); none when
 * the client registered none (a back-channel client: undefined); several must be told apart.
 */
export function registeredRedirect(
  client: Pick<ClientRecord, 'redirect_uris'>,
  named: string | undefined,
): Result<string | undefined> {
  const registered = client.redirect_uris;
  if (named !== undefined) {
    return registered.includes(named)
      ? ok(named)
      : fail('invalid_redirect_uri', 'redirect_uri does not match any registered for this client');
  }
  if (registered.length > 1) {
    return fail(
      'invalid_request',
      'redirect_uri is required: this client has several redirect URIs registered; name one',
    );
  }
  return ok(registered[0]);
}

/**
 * The subject a request names: its own id, or the pairwise id this client was shown under an
 * earlier grant (a client never learns the internal id). A pairwise id this client was not shown
 * (another client's, or made up) stays as given: like an unknown subject id, it makes a request
 * that no subject can approve, and the answer does not tell the difference.
 */
async function subjectNamed(deps: AnyDeps, clientId: string, named: string): Promise<string> {
  if (!named.startsWith(PAIRWISE_SUBJECT_PREFIX)) return named;
  return (await deps.store.subjectForPairwise(clientId, named)) ?? named;
}

function consentUrl(deps: AnyDeps, grantRequestId: string): string {
  return `${deps.provider.baseUrl}/consent/${encodeURIComponent(grantRequestId)}`;
}

/**
 * Where the consent page ends for a request without a redirect URI (a back-channel client): the
 * provider's own page saying the decision is made and the person may close it.
 */
export function decidedUrl(deps: AnyDeps, grantRequestId: string): string {
  return `${consentUrl(deps, grantRequestId)}/done`;
}

function checkScope(input: z.output<typeof ConsentRequestInput>): Result<true> {
  const unknown = input.allowed_namespaces.find((ns) => !isSupportedNamespace(ns));
  if (unknown !== undefined)
    return fail('unknown_namespace', `namespace "${unknown}" is not supported by this provider`);
  const stray = input.allowed_claim_keys
    ?.map(normalizeKey)
    .find((k) => !input.allowed_namespaces.includes(namespaceOfKey(k)));
  if (stray !== undefined)
    return fail('invalid_request', `key "${stray}" lies outside the requested namespaces`);
  // A key no namespace registers would be shown to the person as if it meant something.
  const unknownKeys = unregisteredKeys(input.allowed_claim_keys ?? []);
  if (unknownKeys.length > 0) return fail('invalid_request', unregisteredKeysProblem(unknownKeys));
  return ok(true);
}

function draftOf(input: z.output<typeof ConsentRequestInput>, now: Date): GrantRequestDraft {
  return {
    purposes: [...new Set(input.purposes)],
    allowed_domains: [...new Set(input.allowed_domains)],
    allowed_namespaces: [...new Set(input.allowed_namespaces)],
    ...(input.allowed_claim_keys
      ? { allowed_claim_keys: [...new Set(input.allowed_claim_keys.map(normalizeKey))] }
      : {}),
    allowed_operations: [...new Set(input.allowed_operations)],
    cross_domain_transfer: input.cross_domain_transfer,
    writeback_policy: input.writeback_policy,
    expires_at: new Date(now.getTime() + input.requested_duration_days * MS_PER_DAY).toISOString(),
    access_mode: input.access_mode,
  };
}
