import { randomToken, sha256 } from '../../auth/secrets.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

// Dynamic client registration (RFC 7591). Registration is open, as MCP clients expect; what a
// registered client can do is still nothing until a subject approves a grant for it.

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
const GRANT_TYPES = ['authorization_code', 'refresh_token'];

// Bounds (issue 22 item 12, docs/oauth.md "Registration"): anyone may register, so what one
// registration may store is small. A real client's metadata is far below each.
/** The largest registration request body, in bytes (the endpoint reads no more). */
export const REGISTRATION_BODY_LIMIT = 4096;
export const MAX_REDIRECT_URIS = 10;
/** The longest redirect URI, in characters. */
export const REDIRECT_URI_MAX = 512;
export const CLIENT_NAME_MAX = 200;
export const MAX_CONTACTS = 5;
/** RFC 5321 §4.5.3.1: an address is at most 320 characters (64 + @ + 255). */
const CONTACT_MAX = 320;
/** A self-registered client that got no grant within this many hours is removed (consent/retention.ts). */
export const UNUSED_CLIENT_HOURS = 24;

/** Human-readable metadata kept as sent (RFC 7591 §2), with the longest each may be. */
const TEXT_FIELDS = {
  client_name: CLIENT_NAME_MAX,
  client_uri: REDIRECT_URI_MAX,
  logo_uri: REDIRECT_URI_MAX,
  tos_uri: REDIRECT_URI_MAX,
  policy_uri: REDIRECT_URI_MAX,
  scope: 200,
  software_id: 200,
  software_version: 200,
} as const;

export interface RegisteredClient {
  readonly client_id: string;
  readonly client_id_issued_at: number;
  readonly client_secret?: string;
  readonly client_secret_expires_at?: number;
  readonly [field: string]: unknown;
}

function invalidMetadata(description: string) {
  return fail('invalid_client_metadata', description);
}

/**
 * RFC 7591 §3.1–3.2: validates the metadata, stores the client (source `dynamic`) and answers
 * with the metadata as registered. Unknown fields are ignored (§2: "MUST ignore").
 */
export async function registerDynamicClient(deps: Deps, body: unknown): Promise<Result<RegisteredClient>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalidMetadata('the registration request must be a JSON object');
  }
  const m = body as Record<string, unknown>;
  const uris = redirectUris(m['redirect_uris']);
  if (!uris.ok) return uris;

  // RFC 7591 §2: when omitted, token_endpoint_auth_method is client_secret_basic.
  const method = m['token_endpoint_auth_method'] ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(method as (typeof AUTH_METHODS)[number])) {
    return invalidMetadata(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  }
  const grantTypes = m['grant_types'] ?? ['authorization_code'];
  if (
    !isStringList(grantTypes) ||
    grantTypes.length === 0 ||
    !grantTypes.every((g) => GRANT_TYPES.includes(g))
  ) {
    return invalidMetadata(`grant_types may only contain ${GRANT_TYPES.join(', ')}`);
  }
  const responseTypes = m['response_types'] ?? ['code'];
  if (!isStringList(responseTypes) || responseTypes.some((r) => r !== 'code')) {
    return invalidMetadata('response_types may only contain "code"');
  }
  const text: Record<string, string> = {};
  for (const [field, max] of Object.entries(TEXT_FIELDS)) {
    const v = m[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > max) {
      return invalidMetadata(`${field} must be a string of at most ${max} characters`);
    }
    text[field] = v;
  }
  const contacts = m['contacts'];
  if (
    contacts !== undefined &&
    (!isStringList(contacts) ||
      contacts.length > MAX_CONTACTS ||
      contacts.some((c) => c.length > CONTACT_MAX))
  ) {
    return invalidMetadata(
      `contacts must list at most ${MAX_CONTACTS} addresses of at most ${CONTACT_MAX} characters each`,
    );
  }

  // RFC 9449 §5.2: a client may ask never to be issued a bearer token.
  const dpopBound = m['dpop_bound_access_tokens'];
  if (dpopBound !== undefined && typeof dpopBound !== 'boolean') {
    return invalidMetadata('dpop_bound_access_tokens must be true or false');
  }

  const now = deps.clock();
  const confidential = method !== 'none';
  const secret = confidential ? randomToken() : undefined;
  const metadata = {
    redirect_uris: uris.value,
    token_endpoint_auth_method: method as string,
    grant_types: grantTypes,
    response_types: responseTypes,
    ...text,
    ...(contacts !== undefined ? { contacts } : {}),
    ...(dpopBound !== undefined ? { dpop_bound_access_tokens: dpopBound } : {}),
  };
  const record: ClientRecord = {
    client_id: `dcr_${randomToken(16)}`,
    name: text['client_name'] ?? 'Unnamed client',
    redirect_uris: uris.value,
    kind: confidential ? 'confidential' : 'public',
    // store.ts: SHA-256 (base64url) of the secret.
    ...(secret !== undefined ? { secret_hash: sha256(secret) } : {}),
    created_at: now.toISOString(),
    source: 'dynamic',
    metadata,
  };
  await inTransaction(deps, (tx) => tx.store.putClient(record));
  return ok({
    client_id: record.client_id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    // RFC 7591 §3.2.1: 0 means the secret does not expire.
    ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    ...metadata,
  });
}

/**
 * Each redirect URI is absolute, without a fragment (RFC 6749 §3.1.2), and either https or a
 * loopback http address for native apps (RFC 8252 §7.3; `localhost` as MCP clients use it).
 */
function redirectUris(raw: unknown): Result<string[]> {
  const bad = (why: string) => fail('invalid_redirect_uri', why);
  if (!isStringList(raw) || raw.length === 0) return bad('redirect_uris must list at least one URI');
  if (raw.length > MAX_REDIRECT_URIS)
    return bad(`a client may register at most ${MAX_REDIRECT_URIS} redirect_uris`);
  for (const uri of raw) {
    if (uri.length > REDIRECT_URI_MAX) {
      return bad(
        `"${uri.slice(0, 60)}…" is longer than ${REDIRECT_URI_MAX} characters, the most a redirect URI may be`,
      );
    }
    if (!URL.canParse(uri)) return bad(`"${uri.slice(0, 100)}" is not an absolute URI`);
    const url = new URL(uri);
    if (url.hash || uri.includes('#')) return bad(`"${uri}" has a fragment`);
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      return bad(`"${uri}" must be https, or http on localhost or 127.0.0.1`);
    }
    if (url.username || url.password) return bad(`"${uri}" carries credentials`);
  }
  return ok([...new Set(raw)]);
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}
