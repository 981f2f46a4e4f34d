import assert from 'node:assert/strict';
import type { Claim } from '../../src/model/claim.ts';
import { PPX_VERSION } from '../../src/model/vocabulary.ts';
import { importProfile } from '../../src/operations/export-import/import-profile.ts';
import type { ApiResponse, TestProvider } from './provider.ts';

// Shared setup for the derived-view end-to-end suites. Not a *.test.ts file.

/** A second subject for compatibility (WIRE-NOTES §6), with claim ids of its own. */
export const SECOND_SUBJECT = 'did:example:user-compat-0002';

function claim(key: string, value: number, confidence: number): Claim {
  const dot = key.indexOf('.');
  return {
    claim_id: `ppx:claim:compat-${key.replaceAll('.', '-')}`,
    type: 'preference',
    namespace: dot < 0 ? 'core' : key.slice(0, dot),
    key: dot < 0 ? key : key.slice(dot + 1),
    value,
    value_type: 'float',
    units: 'normalized_0_1',
    confidence,
    source: { kind: 'user_stated' },
  };
}

/** Imports the second subject: its values are distinctive so a leak would show. */
export async function importSecondSubject(p: TestProvider): Promise<void> {
  const at = new Date().toISOString();
  const r = await importProfile(p.deps, {
    ppx_version: PPX_VERSION,
    profile_id: 'ppx:profile:compat-0002',
    subject_id: SECOND_SUBJECT,
    provider_id: 'ppx:provider:elsewhere',
    created_at: at,
    updated_at: at,
    claims: [
      claim('novelty_tolerance', 0.2291, 0.7),
      claim('social_energy_preference', 0.5107, 0.5),
      claim('ambiguity_tolerance', 0.9137, 0.8),
      claim('risk_tolerance', 0.41, 0.7),
      claim('budget_sensitivity', 0.1237, 0.9),
      claim('fragrance.intensity_preference', 0.3317, 0.8),
    ],
  });
  if (!r.ok) throw new Error(r.error.description);
}

/** The raw values of the second subject, as they would appear if leaked. */
export const SECOND_RAW = ['0.2291', '0.5107', '0.9137', '0.41', '0.1237', '0.3317'];

/** A view answer: 200, valid shape, and its text never carries an internal subject id. */
export function assertView(r: ApiResponse, kind: string): void {
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.view_kind, kind);
  assert.match(r.json.view_id, /^ppx:view:[A-Za-z0-9_.:-]+$/);
  assert.match(r.json.subject_id, /^ppx:subject:/);
  assert.ok(!r.text.includes('did:example:'), `internal subject id in ${r.text}`);
  for (const v of Object.values(r.json.signals as Record<string, number>)) {
    assert.ok(typeof v === 'number' && v >= 0 && v <= 1, `signal ${v}`);
  }
  for (const key of Object.keys(r.json.signals)) {
    if (key.includes('.')) assert.ok(r.json.basis.includes(key), `signal ${key} not in basis`);
  }
}

/** Basis keys (`core.x`) in the grant's naming (core unprefixed). */
export function grantKeys(basis: readonly string[]): string[] {
  return basis.map((k) => (k.startsWith('core.') ? k.slice(5) : k)).sort();
}
