import assert from 'node:assert/strict';
import type { CrossDomainTransfer } from '../../src/model/vocabulary.ts';
import { type ApiResponse, api, type TestProvider } from './provider.ts';

// Shared steps for the cross-domain suites: a travel agent's grant over core + fragrance, so
// every fragrance claim is cross-domain for it (docs/cross-domain.md).

/** Strings only the raw fragrance claims carry (family names, notes, occasions). */
export const RAW_FRAGMENTS = ['woody', 'citrus', 'aquatic', 'gourmand', 'oud', 'patchouli', 'date_night'];

export async function travelGrant(p: TestProvider, cross: CrossDomainTransfer) {
  return p.grant({
    client_id: 'travel-demo',
    allowed_domains: ['travel'],
    allowed_namespaces: ['core', 'fragrance'],
    cross_domain_transfer: cross,
  });
}

export async function effective(p: TestProvider, token: string): Promise<ApiResponse> {
  const r = await api(p.url, '/v1/profile/effective', { token, body: {} });
  assert.equal(r.status, 200, r.text);
  return r;
}

/** The subject's pending reviews, of one grant when `grantId` is given. */
export async function pendingReviews(p: TestProvider, grantId?: string) {
  const r = await api(p.url, '/v1/consent/cross-domain/reviews', { token: p.subjectToken });
  assert.equal(r.status, 200, r.text);
  const reviews = r.json.reviews as { review_id: string; grant_id: string; status: string }[];
  return grantId === undefined ? reviews : reviews.filter((x) => x.grant_id === grantId);
}

export function decide(p: TestProvider, verb: 'approve' | 'reject', body: unknown, token = p.subjectToken) {
  return api(p.url, `/v1/consent/cross-domain/${verb}`, { token, body });
}

/** No raw fragrance claim and no raw fragrance value anywhere in a grantee's answer. */
export function assertNoRawFragrance(r: ApiResponse): void {
  for (const c of r.json.claims) assert.notEqual(c.namespace, 'fragrance', JSON.stringify(c));
  for (const raw of RAW_FRAGMENTS) assert.ok(!r.text.includes(raw), `raw "${raw}" leaked: ${r.text}`);
  assert.ok(!r.text.includes('ppx:claim:demo-frag'), 'a raw fragrance claim id leaked');
}
