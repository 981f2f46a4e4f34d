import { z } from 'zod';
import { JWK_THUMBPRINT } from '../../auth/dpop.ts';
import { S256_CHALLENGE } from '../../auth/pkce.ts';
import { randomToken } from '../../auth/secrets.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { supportedNamespaces } from '../../model/extensions/index.ts';
import { CrossDomainTransfer, Operation, Purpose, WritebackPolicy } from '../../model/vocabulary.ts';
import { makeRoomForOAuth } from '../consent/pending-caps.ts';
import {
  type ConsentRequestCreated,
  ConsentRequestInput,
  registeredRedirect,
  requestConsent,
} from '../consent/request.ts';
import type { Deps } from '../deps.ts';
import { OAUTH_DEFAULT_RESOURCE, resourceOfUrl, resourceUrl, resourceUrls } from '../tokens/resources.ts';
import { inTransactionUnlessFailed } from '../transaction.ts';
import { type DocumentOptions, documentClient, isDocumentClientId } from './client-document.ts';
import { DEFAULT_SCOPE, DETAIL_TYPE, domainNamespaces, SCOPE_OPERATIONS } from './metadata.ts';
import { authorizationResponse } from './redirect.ts';
import { PACKAGE_PREFIX } from './token.ts';

// The authorization endpoint's checks (RFC 6749 §4.1.1–4.1.2.1, OAuth 2.1 §4.1). What the client
// asks for becomes an ordinary consent request (operations/consent/request.ts), decided on the
// same consent page; approval answers it with an authorization code (consent/decide.ts).

/** An OAuth error for the client (RFC 6749 §4.1.2.1), or for the person when no redirect is safe. */
interface OAuthProblem {
  readonly error: string;
  readonly description: string;
}

export type AuthorizeCheck =
  /** The client or redirect_uri cannot be trusted: show an error page, never redirect. */
  | { readonly kind: 'page'; readonly problem: OAuthProblem }
  /** The redirect_uri is verified: the error goes back to the client. */
  | { readonly kind: 'redirect'; readonly to: string }
  | { readonly kind: 'valid'; readonly request: AuthorizationRequest };

export interface AuthorizationRequest {
  readonly client: ClientRecord;
  /** The redirect URI named, or the client's only registered one when none was (OAuth 2.1 §4.1.1). */
  readonly redirect_uri: string;
  readonly redirect_uri_omitted: boolean;
  readonly state?: string;
  readonly code_challenge: string;
  /** RFC 9449 §10: the DPoP key the code is bound to. */
  readonly dpop_jkt?: string;
  readonly resource: string;
  readonly scope: string;
  /**
   * What the consent request asks for, less the subject (bound once someone signs in): one
   * element, or several for a grant package (one per authorization_details element).
   */
  readonly asks: readonly DetailAsk[];
}

type Ask = Omit<z.input<typeof ConsentRequestInput>, 'subject_id'>;

interface DetailAsk {
  readonly detail_id: string;
  readonly ask: Ask;
}

/** The most elements one authorization may carry. */
const MAX_DETAILS = 10;

const Names = z.array(z.string().min(1).max(200)).min(1).max(100);

/** One RFC 9396 element of type `ppx_grant` (WIRE-NOTES §3, §4). */
const GrantDetail = z.strictObject({
  type: z.literal(DETAIL_TYPE),
  detail_id: z
    .string()
    .regex(/^[A-Za-z0-9._~-]{1,100}$/)
    .optional(),
  purposes: z.array(Purpose).min(1),
  allowed_domains: Names,
  allowed_namespaces: Names,
  allowed_claim_keys: Names.optional(),
  allowed_operations: z.array(Operation).min(1),
  cross_domain_transfer: CrossDomainTransfer.optional(),
  writeback_policy: WritebackPolicy.optional(),
  duration_days: z.int().min(1).max(365).optional(),
  access_mode: z.enum(['continuous', 'single_use']).optional(),
});

/** Checks an authorization request, in the order RFC 6749 §4.1.2.1 requires. */
export async function checkAuthorization(
  deps: Deps,
  params: Record<string, string[]>,
  options: DocumentOptions,
): Promise<AuthorizeCheck> {
  const page = (error: string, description: string): AuthorizeCheck => ({
    kind: 'page',
    problem: { error, description },
  });
  const one = (name: string) => params[name]?.[0];
  const clientId = one('client_id');
  if (clientId === undefined || clientId === '') return page('invalid_request', 'client_id is missing');
  if ((params['client_id']?.length ?? 0) > 1 || (params['redirect_uri']?.length ?? 0) > 1) {
    return page('invalid_request', 'client_id and redirect_uri may appear only once');
  }
  const client = isDocumentClientId(clientId)
    ? await documentClient(deps, clientId, options)
    : await known(deps, clientId);
  if (!client.ok) return page('invalid_client', client.error.description);
  const named = one('redirect_uri');
  // RFC 6749 §3.1.2.2 / OAuth 2.1 §2.3: the code flow answers at a registered redirect URI, so a
  // client registered with none (a consent-v2 back-channel client) cannot use it at all.
  if (client.value.redirect_uris.length === 0) {
    return page(
      'invalid_request',
      'this app has no redirect URI registered, so it cannot use this sign-in link (the authorization code flow needs one)',
    );
  }
  // OAuth 2.1 §4.1.1: exact string comparison with a registered URI; optional only when the client
  // registered exactly one (RFC 6749 §3.1.2.3), which is then used.
  const resolved = registeredRedirect(client.value, named);
  if (!resolved.ok || resolved.value === undefined) {
    const why =
      named === undefined
        ? 'redirect_uri is required: this app has several redirect URIs registered'
        : 'redirect_uri is not registered for this client';
    return page('invalid_request', why);
  }
  const redirectUri = resolved.value;

  const state = one('state');
  const back = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect',
    to: authorizationResponse(deps, redirectUri, state, { error, description }),
  });
  const repeated = Object.entries(params).find(([, v]) => v.length > 1);
  if (repeated) return back('invalid_request', `${repeated[0]} appears more than once`);
  if (one('request') !== undefined) return back('request_not_supported', 'request objects are not supported');
  if (one('request_uri') !== undefined)
    return back('request_uri_not_supported', 'request_uri is not supported');
  if (one('response_type') !== 'code') return back('unsupported_response_type', 'response_type must be code');
  if (state !== undefined && state.length > 1000) return back('invalid_request', 'state is too long');
  const challenge = one('code_challenge');
  if (challenge === undefined) return back('invalid_request', 'code_challenge is required (PKCE S256)');
  if (one('code_challenge_method') !== 'S256') {
    return back('invalid_request', 'code_challenge_method must be S256; plain is not accepted');
  }
  if (!S256_CHALLENGE.test(challenge))
    return back('invalid_request', 'code_challenge is not a S256 challenge');
  // RFC 9449 §10: the client binds the code to its DPoP key (a JWK SHA-256 thumbprint, RFC 7638).
  const dpopJkt = one('dpop_jkt');
  if (dpopJkt !== undefined && !JWK_THUMBPRINT.test(dpopJkt)) {
    return back('invalid_request', 'dpop_jkt is not a JWK SHA-256 thumbprint (43 base64url characters)');
  }

  // RFC 8707 §2: the resource must be one this server issues tokens for; the MCP one by default.
  const resource = one('resource') ?? resourceUrl(deps.provider, OAUTH_DEFAULT_RESOURCE);
  if (resourceOfUrl(deps.provider, resource) === undefined) {
    return back('invalid_target', `resource must be one of ${resourceUrls(deps.provider).join(', ')}`);
  }
  const scope = one('scope');
  const scopes = (scope ?? '').split(' ').filter((s) => s !== '');
  const unknownScope = scopes.find((s) => SCOPE_OPERATIONS[s] === undefined);
  if (unknownScope !== undefined) return back('invalid_scope', `scope "${unknownScope}" is not supported`);

  const detailsRaw = one('authorization_details');
  let asks: DetailAsk[];
  if (detailsRaw !== undefined) {
    const details = parseDetails(detailsRaw);
    if (!details.ok) return back('invalid_authorization_details', details.error.description);
    asks = details.value.map((d, i) => ({
      detail_id: d.detail_id ?? `detail-${i}`,
      ask: {
        ...common(client.value.client_id, redirectUri, challenge),
        purposes: d.purposes,
        allowed_domains: d.allowed_domains,
        allowed_namespaces: d.allowed_namespaces,
        ...(d.allowed_claim_keys ? { allowed_claim_keys: d.allowed_claim_keys } : {}),
        allowed_operations: d.allowed_operations,
        ...(d.cross_domain_transfer ? { cross_domain_transfer: d.cross_domain_transfer } : {}),
        ...(d.writeback_policy ? { writeback_policy: d.writeback_policy } : {}),
        ...(d.duration_days ? { requested_duration_days: d.duration_days } : {}),
        ...(d.access_mode ? { access_mode: d.access_mode } : {}),
      },
    }));
  } else {
    // Scopes only: everything this provider holds, for the operations the scopes name; the
    // consent page lets the subject narrow namespaces, domains, purposes and expiry.
    const operations = (scopes.length > 0 ? scopes : DEFAULT_SCOPE.split(' ')).map(
      (s) => SCOPE_OPERATIONS[s]!,
    );
    asks = [
      {
        detail_id: 'scope',
        ask: {
          ...common(client.value.client_id, redirectUri, challenge),
          purposes: ['recommendation', 'personalization', 'explanation'],
          allowed_domains: domainNamespaces(),
          allowed_namespaces: supportedNamespaces(),
          allowed_operations: [...new Set(operations)],
          requested_duration_days: 30,
        },
      },
    ];
  }
  return {
    kind: 'valid',
    request: {
      client: client.value,
      redirect_uri: redirectUri,
      redirect_uri_omitted: named === undefined,
      ...(state !== undefined ? { state } : {}),
      code_challenge: challenge,
      ...(dpopJkt !== undefined ? { dpop_jkt: dpopJkt } : {}),
      resource,
      scope: scope ?? (detailsRaw === undefined ? DEFAULT_SCOPE : ''),
      asks,
    },
  };
}

function common(clientId: string, redirectUri: string, challenge: string) {
  return {
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    access_mode: 'continuous' as const,
  };
}

async function known(deps: Deps, clientId: string): Promise<Result<ClientRecord>> {
  const client = await deps.store.getClient(clientId);
  return client
    ? ok(client)
    : fail('invalid_client', `client "${clientId}" is not registered with this provider`);
}

/**
 * RFC 9396 §2: a JSON array of `ppx_grant` elements. One element is an ordinary grant; several
 * are a grant package (WIRE-NOTES §4), whose detail_ids must be unique.
 */
function parseDetails(raw: string): Result<z.infer<typeof GrantDetail>[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail('invalid_request', 'authorization_details is not JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    return fail('invalid_request', 'authorization_details must be a non-empty JSON array');
  }
  if (parsed.length > MAX_DETAILS) {
    return fail('invalid_request', `authorization_details may carry at most ${MAX_DETAILS} elements`);
  }
  const details: z.infer<typeof GrantDetail>[] = [];
  for (const [i, element] of parsed.entries()) {
    const detail = GrantDetail.safeParse(element);
    if (!detail.success) {
      const issue = detail.error.issues[0];
      return fail(
        'invalid_request',
        `authorization_details[${i}].${issue?.path.join('.') ?? ''}: ${issue?.message}`,
      );
    }
    details.push(detail.data);
  }
  if (details.length > 1) {
    const ids = details.map((d) => d.detail_id);
    if (ids.some((id) => id === undefined)) {
      return fail('invalid_request', 'each element of a grant package needs a detail_id');
    }
    if (new Set(ids).size !== ids.length) return fail('invalid_request', 'detail_id values must be unique');
  }
  return ok(details);
}

/**
 * Creates the consent request for the signed-in subject, with its OAuth facts, in one
 * transaction. The request token requestConsent returns is dropped unseen: an OAuth request is
 * exchanged with the authorization code, never with a request token.
 */
export async function startOAuthConsent(
  deps: Deps,
  subjectId: string,
  request: AuthorizationRequest,
): Promise<Result<ConsentRequestCreated>> {
  const inputs: z.output<typeof ConsentRequestInput>[] = [];
  for (const { ask } of request.asks) {
    const input = ConsentRequestInput.safeParse({ ...ask, subject_id: subjectId });
    if (!input.success) {
      return fail('invalid_request', input.error.issues[0]?.message ?? 'the request is not valid');
    }
    inputs.push(input.data);
  }
  const oauth = {
    resource: request.resource,
    ...(request.redirect_uri_omitted ? { redirect_uri_omitted: true as const } : {}),
    ...(request.state !== undefined ? { state: request.state } : {}),
    ...(request.scope !== '' ? { scope: request.scope } : {}),
    ...(request.dpop_jkt !== undefined ? { dpop_jkt: request.dpop_jkt } : {}),
  };
  // Several elements are a grant package: one consent request per element, decided together.
  const packageId = inputs.length > 1 ? `${PACKAGE_PREFIX}${randomToken(16)}` : undefined;
  // All the package's requests, or none: one refused element leaves nothing pending behind.
  return inTransactionUnlessFailed(deps, async (tx) => {
    // The person is here asking for this app: its oldest pending asks make way (pending-caps.ts).
    const room = await makeRoomForOAuth(tx, subjectId, request.client.client_id, deps.clock());
    if (!room.ok) return room;
    let first: ConsentRequestCreated | undefined;
    for (const [index, input] of inputs.entries()) {
      const membership = packageId
        ? { package_id: packageId, detail_id: request.asks[index]!.detail_id, index }
        : undefined;
      const created = await requestConsent(tx, input, membership, 'made_by_caller');
      if (!created.ok) return created;
      const attached = await tx.store.transitionGrantRequest(created.value.grant_request_id, 'pending', {
        oauth,
      });
      if (!attached) throw new Error('a consent request just created was not pending');
      first ??= created.value;
    }
    return ok({ ...first!, request_token: '' });
  });
}
