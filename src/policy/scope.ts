import { namespaceOfKey, normalizeKey } from '../model/claim.ts';
import type { ConsentGrant } from '../model/consent-grant.ts';
import { fail, ok, type Result } from '../model/errors.ts';
import { isSupportedNamespace } from '../model/extensions/index.ts';
import type { GrantRecord } from '../model/grant-record.ts';
import type { CrossDomainTransfer, Operation, Purpose } from '../model/vocabulary.ts';
import { grantStatusAt } from './grant-status.ts';

/** What a caller asks to do under a grant. Requested sets may only narrow the grant. */
export interface AccessRequest {
  /** The operation the endpoint performs (SPEC §6.4). */
  readonly operation: Operation;
  /** Other grant operations that also permit this one (a `read` grant may run a query). */
  readonly alsoPermittedBy?: readonly Operation[];
  readonly purpose?: Purpose;
  readonly namespaces?: readonly string[];
  readonly keys?: readonly string[];
  readonly domain?: string;
}

/** The evaluated scope of one request under one grant: everything visible must lie inside it. */
/** What a grant covers, as visibility reads it (visibility.ts#isClaimVisible): no grant state. */
export type Reach = Pick<Scope, 'namespaces' | 'keys' | 'useDomains' | 'crossDomain'>;

export interface Scope {
  readonly grant: GrantRecord;
  readonly namespaces: ReadonlySet<string>;
  /** Normalized claim keys (core unprefixed, others `namespace.key`); undefined = no key limit. */
  readonly keys: ReadonlySet<string> | undefined;
  /** The domains the caller will use the claims in. */
  readonly useDomains: readonly string[];
  readonly crossDomain: CrossDomainTransfer;
}

/**
 * Decides whether `request` may run under `grant` at `now`, and with which scope. Deny by
 * default: every branch that lets a request through is a rule of SPEC §6; any other case fails.
 * The checks look only at the grant and the request, never at the stored claims, so a refusal
 * says nothing about what the profile holds.
 */
export function evaluateAccess(grant: GrantRecord, request: AccessRequest, now: Date): Result<Scope> {
  const grantId = grant.grant_id;
  const status = grantStatusAt(grant, now);
  // SPEC §6.2 rule 7: revoked grants immediately deny further access.
  if (status === 'revoked')
    return fail('grant_revoked', 'this grant was revoked by the subject', { grantId });
  // SPEC §6.2 rule 4: an expired grant authorizes nothing new.
  if (status === 'expired')
    return fail('grant_expired', `this grant expired at ${grant.expires_at}`, { grantId });
  // WIRE-NOTES §2: a pending request carries no authority at all.
  if (status === 'pending') return fail('invalid_token', 'this grant has not been approved', { grantId });

  const permitted = [request.operation, ...(request.alsoPermittedBy ?? [])];
  if (!permitted.some((op) => grant.allowed_operations.includes(op))) {
    return fail('insufficient_scope', `the grant does not allow the operation "${request.operation}"`, {
      grantId,
      details: { required_operation: request.operation, allowed_operations: grant.allowed_operations },
    });
  }
  // SPEC §13.3 step 5: a one-time grant ends with its session and allows no export, whatever
  // operations it lists.
  if (request.operation === 'export' && grant.access_mode === 'single_use') {
    return fail('insufficient_scope', 'a one-time (single_use) grant never allows export (SPEC §13.3)', {
      grantId,
      details: { access_mode: 'single_use' },
    });
  }
  // SPEC §6.2 rule 3: grants are scoped by purpose; a declared purpose must be one granted.
  if (request.purpose !== undefined && !grant.purposes.includes(request.purpose)) {
    return fail('insufficient_scope', `the grant does not allow the purpose "${request.purpose}"`, {
      grantId,
      details: { purposes: grant.purposes },
    });
  }

  const grantNamespaces = new Set(grant.allowed_namespaces);
  const grantKeys = grant.allowed_claim_keys
    ? new Set(grant.allowed_claim_keys.map(normalizeKey))
    : undefined;

  const namespaces = narrowNamespaces(grantNamespaces, request.namespaces, grantId);
  if (!namespaces.ok) return namespaces;
  const keys = narrowKeys(grantNamespaces, grantKeys, request.keys, grantId);
  if (!keys.ok) return keys;

  // SPEC §10 MUST NOT 1: a request never widens the domains; asking for another domain is a
  // cross-domain use, which needs a grant that names that domain.
  if (request.domain !== undefined && !grant.allowed_domains.includes(request.domain)) {
    return fail('cross_domain_denied', `the grant does not cover use in the "${request.domain}" domain`, {
      grantId,
      details: { allowed_domains: grant.allowed_domains },
    });
  }

  return ok({
    grant,
    namespaces: namespaces.value,
    keys: keys.value,
    useDomains: request.domain !== undefined ? [request.domain] : grant.allowed_domains,
    crossDomain: grant.cross_domain_transfer,
  });
}

/**
 * A grant's whole scope, nothing narrowed: every claim the grant can see under any request is
 * visible under it. Not an authorization (no status, operation or purpose check): it says what
 * the grant covers, for what a grantee is told about all it can read (its freshness,
 * operations/reads/freshness.ts). evaluateAccess gives the same scope to a request that narrows nothing.
 */
export function grantScope(grant: GrantRecord): Scope {
  return { grant, ...reachOf(grant) };
}

/**
 * What a published grant covers, whatever is asked of it: the claims it shows are those
 * isClaimVisible lets through this reach (what the person is told "who can see it" with).
 */
export function reachOf(
  grant: Pick<
    ConsentGrant,
    'allowed_namespaces' | 'allowed_claim_keys' | 'allowed_domains' | 'cross_domain_transfer'
  >,
): Reach {
  return {
    namespaces: new Set(grant.allowed_namespaces),
    keys: grant.allowed_claim_keys ? new Set(grant.allowed_claim_keys.map(normalizeKey)) : undefined,
    useDomains: grant.allowed_domains,
    crossDomain: grant.cross_domain_transfer,
  };
}

function narrowNamespaces(
  granted: ReadonlySet<string>,
  requested: readonly string[] | undefined,
  grantId: string,
): Result<ReadonlySet<string>> {
  if (requested === undefined) return ok(granted);
  for (const ns of requested) {
    if (!isSupportedNamespace(ns)) {
      return fail('unknown_namespace', `namespace "${ns}" is not supported by this provider`, { grantId });
    }
    if (!granted.has(ns)) {
      return fail('insufficient_scope', `the grant does not include namespace "${ns}"`, { grantId });
    }
  }
  return ok(new Set(requested));
}

function narrowKeys(
  grantNamespaces: ReadonlySet<string>,
  grantKeys: ReadonlySet<string> | undefined,
  requested: readonly string[] | undefined,
  grantId: string,
): Result<ReadonlySet<string> | undefined> {
  if (requested === undefined) return ok(grantKeys);
  const keys = new Set<string>();
  for (const raw of requested) {
    const key = normalizeKey(raw);
    const ns = namespaceOfKey(key);
    if (!isSupportedNamespace(ns)) {
      return fail(
        'unknown_namespace',
        `namespace "${ns}" of key "${raw}" is not supported by this provider`,
        {
          grantId,
        },
      );
    }
    if (!grantNamespaces.has(ns) || (grantKeys !== undefined && !grantKeys.has(key))) {
      return fail('insufficient_scope', `the grant does not include key ${key}`, { grantId });
    }
    keys.add(key);
  }
  return ok(keys);
}
