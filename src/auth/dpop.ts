import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, type JWK } from 'jose';
import { fail, ok, type Result } from '../model/errors.ts';
import { type SignatureCheck, signatureCheck } from './proof-signature.ts';

// DPoP proofs (RFC 9449 §4.3), checked the same way at the token endpoints and at every
// protected resource. Pure: the clock, the expected method and URL, the access token and the
// nonce rule come in as arguments; whether a proof's `jti` was seen before is the caller's to
// ask (operations/tokens/dpop-proof.ts, through the replay ledger), since that is shared state.

/** RFC 9449 §5.1 `dpop_signing_alg_values_supported`: asymmetric only (§4.3 step 5; §11.6). */
export const DPOP_ALGS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
] as const;

/** RFC 7638 SHA-256 thumbprint as RFC 9449 writes it (`cnf.jkt`, `dpop_jkt`): 43 base64url characters. */
export const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/** §11.1: how old a proof may be (seconds before now), and how far ahead a client clock may run. */
export const PROOF_MAX_AGE_SECONDS = 300;
export const PROOF_FUTURE_SECONDS = 60;

/** Far above a proof with an RSA-4096 key (about 1,500 characters); a bigger header is refused unread. */
const MAX_PROOF_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;
/** JWK members only a private key has (RFC 7518 §6.2.2, §6.3.2; §6.4 for `k`). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** What one request expects of its proof. */
export interface ProofExpectation {
  /** The request's method (§4.3 step 8). */
  readonly htm: string;
  /** The request's URL without query and fragment, as seen at the provider's base URL (step 9). */
  readonly htu: string;
  readonly now: Date;
  /** The access token presented with the proof: its hash must be the proof's `ath` (step 12). */
  readonly accessToken?: string;
  /** Step 10: whether the proof's `nonce` (possibly absent) is one the server gave out and still takes. */
  readonly nonceOk?: (nonce: string | undefined) => boolean;
}

/** A proof that passed: the key's thumbprint (RFC 7638, the `cnf.jkt` of RFC 9449 §6.1), its jti and iat. */
export interface VerifiedProof {
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
}

function bad(description: string) {
  return fail('invalid_dpop_proof', `the DPoP proof ${description}`);
}

interface ProofKey {
  readonly check: SignatureCheck;
  /** RFC 7638 thumbprint of the key, the `cnf.jkt` a token is bound to (RFC 9449 §6.1). */
  readonly jkt: string;
}

/**
 * Proof keys already checked and imported, by the proof's protected header as sent: a client
 * signs every proof with one key under one header (alg, typ, jwk), so the header's checks, the
 * key import and the thumbprint are done once per client, not per request (they were half the
 * cost of a proof: docs/oauth.md "DPoP"). Only headers that passed are kept; bounded, safe to lose.
 */
const keys = new Map<string, ProofKey>();
const KEY_CACHE_LIMIT = 10_000;
/** Headers longer than this (an RSA key) are kept under their digest, not as they are. */
const KEY_CACHE_RAW_LIMIT = 512;

async function proofKeyOf(segment: string, proof: string): Promise<Result<ProofKey>> {
  const id =
    segment.length <= KEY_CACHE_RAW_LIMIT
      ? segment
      : createHash('sha256').update(segment).digest('base64url');
  const known = keys.get(id);
  if (known) return ok(known);
  const checked = await checkHeader(proof);
  if (!checked.ok) return checked;
  if (keys.size >= KEY_CACHE_LIMIT) keys.clear();
  keys.set(id, checked.value);
  return checked;
}

/** §4.3 steps 4–6 and the key itself: the type, an asymmetric algorithm, a public key of its own. */
async function checkHeader(proof: string): Promise<Result<ProofKey>> {
  let protectedHeader: ReturnType<typeof decodeProtectedHeader>;
  try {
    protectedHeader = decodeProtectedHeader(proof);
  } catch {
    return bad('has a header that is not base64url-encoded JSON');
  }
  if (protectedHeader.typ !== 'dpop+jwt') return bad('must have typ "dpop+jwt"');
  const alg = protectedHeader.alg;
  if (typeof alg !== 'string' || !(DPOP_ALGS as readonly string[]).includes(alg)) {
    return bad(`must be signed with one of ${DPOP_ALGS.join(', ')} (not "${String(alg).slice(0, 20)}")`);
  }
  const jwk = protectedHeader.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    return bad('must carry the public key in its jwk header');
  }
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) {
    return bad('carries a private or symmetric key in its jwk header');
  }
  if ((jwk.alg !== undefined && jwk.alg !== alg) || (jwk.use !== undefined && jwk.use !== 'sig')) {
    return bad('has a jwk whose alg or use does not match the proof');
  }
  // RFC 7515 §4.1.11: no extension is understood here, so a proof that names one is refused
  // (RFC 7797's unencoded payload among them).
  if (protectedHeader.crit !== undefined || protectedHeader.b64 !== undefined) {
    return bad('uses a JWS extension (crit or b64) this server does not support');
  }
  const check = await signatureCheck(jwk as JWK, alg);
  if (check === undefined) return bad(`has a jwk that is not a public key for ${alg}`);
  try {
    return ok({ check, jkt: await calculateJwkThumbprint(jwk as JWK, 'sha256') });
  } catch {
    return bad(`has a jwk that is not a public key for ${alg}`);
  }
}

/**
 * RFC 9449 §4.3's checks, in its order, except step 11's replay check (the caller's, against
 * shared state). `header` is the request's `DPoP` header as received (several headers arrive
 * joined by commas, which a compact JWS never contains: §4.3 step 1, "not more than one").
 * Never throws: every malformed input is `invalid_dpop_proof` with a description.
 */
export async function verifyProof(
  header: string | undefined,
  expect: ProofExpectation,
): Promise<Result<VerifiedProof>> {
  if (header === undefined || header === '') return bad('is missing: send one in the DPoP header');
  if (header.length > MAX_PROOF_LENGTH) return bad(`is longer than ${MAX_PROOF_LENGTH} characters`);
  if (header.includes(',')) return bad('must be sent in exactly one DPoP header');
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(header)) {
    return bad('is not a compact JWS (three base64url parts)');
  }
  const firstDot = header.indexOf('.');
  const lastDot = header.lastIndexOf('.');
  const embedded = await proofKeyOf(header.slice(0, firstDot), header);
  if (!embedded.ok) return embedded;
  const { check, jkt } = embedded.value;
  // Step 7: the signature, with the key in the proof itself.
  if (!check(header.slice(0, lastDot), Buffer.from(header.slice(lastDot + 1), 'base64url'))) {
    return bad('signature does not verify');
  }
  const payload = claimsOf(header.slice(firstDot + 1, lastDot));
  if (payload === undefined) return bad('could not be read: its claims are not a JSON object');
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) {
    return bad(`must have a jti of 1 to ${MAX_JTI_LENGTH} characters`);
  }
  // Step 8: the method; step 9: the URL, both compared after syntax-based normalization.
  if (htm !== expect.htm) return bad(`is for ${String(htm).slice(0, 10)}, not ${expect.htm}`);
  if (typeof htu !== 'string' || !sameTarget(htu, expect.htu)) return bad(`is not for ${expect.htu}`);
  // Step 11 (the window half): iat within the acceptable window (§11.1).
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return bad('must have a numeric iat');
  const nowSeconds = expect.now.getTime() / 1000;
  if (iat < nowSeconds - PROOF_MAX_AGE_SECONDS) {
    return bad(`is too old (iat more than ${PROOF_MAX_AGE_SECONDS} seconds ago)`);
  }
  if (iat > nowSeconds + PROOF_FUTURE_SECONDS) return bad('was issued in the future (check the clock)');
  // Step 12: bound to the very access token presented with it.
  if (expect.accessToken !== undefined) {
    if (typeof ath !== 'string') return bad('must carry ath, the hash of the access token');
    if (ath !== accessTokenHash(expect.accessToken)) return bad('ath does not match the access token');
  }
  // Step 10: the server's nonce, when it asks for one.
  if (expect.nonceOk !== undefined) {
    const nonce = payload['nonce'];
    if (nonce !== undefined && typeof nonce !== 'string') return bad('has a nonce that is not a string');
    if (!expect.nonceOk(nonce)) {
      return fail('use_dpop_nonce', 'a DPoP proof must carry the nonce of the DPoP-Nonce header');
    }
  }
  return ok({ jkt, jti, iat });
}

/**
 * The claims of a proof whose signature verified: base64url JSON, an object (RFC 7519 §7.2 steps
 * 9–10). Read here rather than by jose's decodeJwt, which decodes the header again and was a
 * tenth of a proof's cost; the segment is known to be base64url already.
 */
function claimsOf(segment: string): Record<string, unknown> | undefined {
  try {
    const claims: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 9449 §4.1 `ath`: base64url SHA-256 of the access token's ASCII bytes. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** §4.3 step 9: the same URL, query and fragment ignored, after RFC 3986 §6.2.2–6.2.3 normalization. */
function sameTarget(htu: string, expected: string): boolean {
  if (htu === expected) return true; // what every client sends; parsing is for the other spellings
  if (htu.length > 2048 || !URL.canParse(htu)) return false;
  const a = new URL(htu);
  const b = new URL(expected);
  return a.origin === b.origin && a.pathname === b.pathname;
}
