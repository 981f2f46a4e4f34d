import assert from 'node:assert/strict';
import type { Claim } from '../../src/model/claim.ts';
import { api, type TestProvider } from './provider.ts';

// Shared steps of the write-back suites (test/e2e/http/writeback/*.test.ts).

/** A proposed claim (no claim_id: the provider picks it). */
export function proposed(namespace: string, key: string, value: unknown, overrides: Partial<Claim> = {}) {
  return {
    type: 'preference',
    namespace,
    key,
    value,
    confidence: 0.6,
    source: { kind: 'observed', origin: 'in_app_session' },
    ...overrides,
  };
}

export function propose(
  p: TestProvider,
  token: string,
  claims: unknown[],
  extra: Record<string, unknown> = {},
) {
  return api(p.url, '/v1/profile/propose-updates', { token, body: { claims, ...extra } });
}

export function confirm(p: TestProvider, token: string, decisions: unknown[]) {
  return api(p.url, '/v1/profile/confirm-updates', { token, body: { decisions } });
}

/** The subject's stored claims, straight from the store. */
export async function storedClaims(p: TestProvider): Promise<readonly Claim[]> {
  const profile = await p.deps.store.getProfileBySubject(p.subjectId);
  assert.ok(profile);
  return p.deps.store.listClaims(profile.profile_id);
}

export async function proposalsOf(
  p: TestProvider,
  status?: 'pending' | 'confirmed' | 'rejected' | 'applied',
) {
  const profile = await p.deps.store.getProfileBySubject(p.subjectId);
  assert.ok(profile);
  return p.deps.store.listProposals(profile.profile_id, status);
}

export function claimByKey(claims: readonly Claim[], qkey: string): Claim | undefined {
  return claims.find((c) => (c.namespace === 'core' ? c.key : `${c.namespace}.${c.key}`) === qkey);
}

/** The subject's view of one key through the HTTP read path. */
export async function readKey(p: TestProvider, token: string, qkey: string): Promise<Claim | undefined> {
  const r = await api(p.url, '/v1/profile/query', { token, body: { requested_keys: [qkey] } });
  assert.equal(r.status, 200, r.text);
  return claimByKey(r.json.claims, qkey);
}

/** Audit events of the subject with one action. */
export async function auditActions(
  p: TestProvider,
  action: string,
): Promise<
  { claim_keys: string[]; grant_id?: string; actor: { kind: string; id: string }; detail?: string }[]
> {
  const r = await api(p.url, `/v1/audit/events?action=${action}&limit=500`, { token: p.subjectToken });
  assert.equal(r.status, 200, r.text);
  return r.json.events;
}

export const WRITE_GRANT = {
  allowed_operations: ['read', 'query', 'propose_update'] as ('read' | 'query' | 'propose_update')[],
};
