import assert from 'node:assert/strict';
import { DEMO_SUBJECT } from '../../src/operations/seed/demo-profile.ts';
import type { ApiResponse } from './provider.ts';

// Shared expectations for the HTTP end-to-end suites (test/e2e/http/*.test.ts).

/** Qualified keys (core unprefixed, others `namespace.key`) of the demo profile, by namespace. */
export const CORE_KEYS = [
  'ambiguity_tolerance',
  'budget_sensitivity',
  'explanation_depth_preference',
  'novelty_tolerance',
  'risk_tolerance',
  'sensory_intensity_preference',
  'social_energy_preference',
] as const;
export const FRAGRANCE_KEYS = [
  'fragrance.family_preference',
  'fragrance.freshness_preference',
  'fragrance.intensity_preference',
  'fragrance.note_aversions',
  'fragrance.occasion_bias',
  'fragrance.projection_tolerance',
  'fragrance.sweetness_preference',
] as const;
export const TRAVEL_KEYS = [
  'travel.accommodation_style',
  'travel.climate_heat_humidity_bias',
  'travel.cuisine_openness',
  'travel.pace_preference',
  'travel.trip_duration_preference_days',
  'travel.urbanism_preference',
] as const;

/** The provenance of every demo claim (src/operations/demo-profile.ts). */
export const PROVENANCE: Readonly<Record<string, string>> = {
  novelty_tolerance: 'inferred',
  social_energy_preference: 'user_stated',
  sensory_intensity_preference: 'observed',
  risk_tolerance: 'imported',
  ambiguity_tolerance: 'derived_aggregate',
  budget_sensitivity: 'user_stated',
  explanation_depth_preference: 'observed',
  'fragrance.family_preference': 'observed',
  'fragrance.intensity_preference': 'user_stated',
  'fragrance.projection_tolerance': 'inferred',
  'fragrance.freshness_preference': 'observed',
  'fragrance.sweetness_preference': 'user_stated',
  'fragrance.note_aversions': 'user_stated',
  'fragrance.occasion_bias': 'imported',
  'travel.climate_heat_humidity_bias': 'observed',
  'travel.urbanism_preference': 'user_stated',
  'travel.pace_preference': 'inferred',
  'travel.cuisine_openness': 'derived_aggregate',
  'travel.accommodation_style': 'user_stated',
  'travel.trip_duration_preference_days': 'imported',
};

export const INTERNAL_SUBJECT = DEMO_SUBJECT;

interface KeyedClaim {
  namespace: string;
  key: string;
}

export function qkey(c: KeyedClaim): string {
  return c.namespace === 'core' ? c.key : `${c.namespace}.${c.key}`;
}

/** The sorted qualified keys of the claims in a response body (summary, effective or export). */
export function keysOf(body: { claims?: KeyedClaim[] } | undefined): string[] {
  assert.ok(body && Array.isArray(body.claims), `expected a claims array in ${JSON.stringify(body)}`);
  return body.claims!.map(qkey).sort();
}

export function sorted(xs: readonly string[]): string[] {
  return [...xs].sort();
}

/** A grantee response must never carry the internal subject id, anywhere in it. */
export function assertNoInternalId(r: ApiResponse): void {
  assert.ok(!r.text.includes(INTERNAL_SUBJECT), `internal subject id leaked: ${r.text.slice(0, 300)}`);
  assert.ok(!r.text.includes('user-demo-0001'), `internal subject id leaked: ${r.text.slice(0, 300)}`);
}

/**
 * A PPX error answer: the status, the code, a non-empty description, a JSON body and no trace of
 * the implementation (stack frames, file paths).
 */
export function assertError(r: ApiResponse, status: number, code: string): void {
  assert.equal(r.status, status, `expected ${status} ${code}, got ${r.status}: ${r.text.slice(0, 300)}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.ok(r.json !== undefined && typeof r.json === 'object', `error body is not JSON: ${r.text}`);
  assert.equal(r.json.error, code, r.text);
  assert.equal(typeof r.json.error_description, 'string');
  assert.ok(r.json.error_description.length > 0, 'error_description is empty');
  assertNoTrace(r.text);
}

export function assertNoTrace(text: string): void {
  assert.doesNotMatch(text, /\bat [\w.<>]+ \(/, 'stack frame in body');
  assert.doesNotMatch(text, /\n\s+at /, 'stack frame in body');
  assert.doesNotMatch(text, /file:\/\/|\/work\/|\/src\/|node_modules|\.ts:\d+/, 'file path in body');
}

/** A 401 whose challenge names `error="invalid_token"` (a token was presented). */
export function assertInvalidTokenChallenge(r: ApiResponse, code: string): void {
  assertError(r, 401, code);
  const challenge = r.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer realm="ppx"/, challenge);
  assert.match(challenge, /error="invalid_token"/, challenge);
}

/** A 401 to a request without a token: a bare challenge, no error code (RFC 6750 §3.1). */
export function assertBareChallenge(r: ApiResponse): void {
  assertError(r, 401, 'invalid_token');
  const challenge = r.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer realm="ppx"/, challenge);
  assert.doesNotMatch(challenge, /error=/, challenge);
}

export function pastIso(msAgo = 3_600_000): string {
  return new Date(Date.now() - msAgo).toISOString();
}
