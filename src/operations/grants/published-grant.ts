import type { ConsentGrant } from '../../model/consent-grant.ts';
import type { GrantEcho } from '../../model/effective-profile.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { grantStatusAt } from '../../policy/grant-status.ts';
import type { Scope } from '../../policy/scope.ts';

/** A stored grant as published (consent-grant.schema.json), with its status as of `now`. */
export function publishGrant(grant: GrantRecord, subjectIdShown: string, now: Date): ConsentGrant {
  const { profile_id: _p, access_mode: _a, ...published } = grant;
  return { ...published, subject_id: subjectIdShown, status: grantStatusAt(grant, now) };
}

/** The `grant` block echoing the scope a response was evaluated under (bindings/http.md). */
export function grantEcho(scope: Scope): GrantEcho {
  const g = scope.grant;
  return {
    grant_id: g.grant_id,
    allowed_namespaces: [...scope.namespaces],
    ...(scope.keys !== undefined ? { allowed_claim_keys: [...scope.keys] } : {}),
    allowed_domains: [...scope.useDomains],
    purposes: [...g.purposes],
    cross_domain_transfer: g.cross_domain_transfer,
    writeback_policy: g.writeback_policy,
    ...(g.expires_at !== undefined ? { expires_at: g.expires_at } : {}),
  };
}
