import type { Claim, EffectiveProfile } from './types.ts';

/**
 * One key of an effective profile: `present` with its claim, `not_granted` when the grant does not
 * cover the key (ask for it), or `not_there` when the grant covers it and the profile shows no
 * claim (the person has none, or none this grant may see: the provider does not say which).
 */
export type KeyLookup =
  | { readonly state: 'present'; readonly claim: Claim }
  | { readonly state: 'not_granted' }
  | { readonly state: 'not_there' };

/** Looks up `key`: unprefixed for a core key (`novelty_tolerance`), `namespace.key` for a domain key. */
export function lookup(profile: EffectiveProfile, key: string): KeyLookup {
  const dot = key.indexOf('.');
  const namespace = dot < 0 ? 'core' : key.slice(0, dot);
  const bare = dot < 0 ? key : key.slice(dot + 1);
  const claim = profile.claims.find((c) => c.namespace === namespace && c.key === bare);
  if (claim !== undefined) return { state: 'present', claim };
  const grant = profile.grant;
  if (grant !== undefined) {
    if (!grant.allowed_namespaces.includes(namespace)) return { state: 'not_granted' };
    if (
      grant.allowed_claim_keys !== undefined &&
      grant.allowed_claim_keys.length > 0 &&
      !grant.allowed_claim_keys.includes(key)
    ) {
      return { state: 'not_granted' };
    }
  }
  return { state: 'not_there' };
}
