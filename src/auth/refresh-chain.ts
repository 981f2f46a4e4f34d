import { createHmac } from 'node:crypto';
import { safeEqual } from './secrets.ts';

/**
 * Refresh tokens that name their family and generation (issue 27 item 4; docs/oauth.md, "Refresh
 * tokens"): `<family_id>~<generation>~<mac>`, where mac is the HMAC-SHA256 of
 * `<family_id>~<generation>` under the family's seed. A presented token is checked against its
 * family's one row (RefreshChainRecord): a valid mac of the current generation is the current
 * token, of a lower one a spent token (theft), of a higher one or with a wrong mac no token at all.
 *
 * The seed is kept in the store, as the access tokens' signing key is: whoever reads the store
 * can make this provider's tokens either way. What the store still never holds is a token itself.
 */

/** A token's parts, as presented; `mac` is not checked yet. */
export interface ChainToken {
  readonly familyId: string;
  readonly generation: number;
  readonly mac: string;
}

const SHAPE = /^(fam_[A-Za-z0-9_-]{1,64})~(0|[1-9][0-9]{0,14})~([A-Za-z0-9_-]{43})$/;

/** The parts of a token of this form, or undefined for any other string (an older token is a bare capability). */
export function parseChainToken(token: string): ChainToken | undefined {
  const m = SHAPE.exec(token);
  if (m === null) return undefined;
  return { familyId: m[1] as string, generation: Number(m[2]), mac: m[3] as string };
}

/** The token of `generation` in the family of `familyId` made with `seed`. */
export function chainToken(seed: string, familyId: string, generation: number): string {
  const named = `${familyId}~${generation}`;
  return `${named}~${macOf(seed, named)}`;
}

/** Whether `token`'s mac is the one its family's seed makes (in time independent of where it differs). */
export function chainMacValid(seed: string, token: ChainToken): boolean {
  return safeEqual(token.mac, macOf(seed, `${token.familyId}~${token.generation}`));
}

function macOf(seed: string, named: string): string {
  // The key is the seed's text (43 characters carrying its 256 bits): node:crypto takes a string
  // key in ~3 µs, where a Buffer costs ~20 (its checks of what kind of key it is were 15 % of a
  // token refresh in a profile).
  return createHmac('sha256', seed).update(named).digest('base64url');
}
