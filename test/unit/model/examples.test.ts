import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { Claim } from '../../../src/model/claim.ts';
import { ConsentGrant } from '../../../src/model/consent-grant.ts';
import { ContextModifier } from '../../../src/model/context-modifier.ts';
import { DerivedView } from '../../../src/model/derived-view.ts';
import { DiscoveryCard } from '../../../src/model/discovery-card.ts';
import { vocabularyProblems } from '../../../src/model/extensions/index.ts';
import { Profile } from '../../../src/model/profile.ts';
import {
  type OfficialSchemaName,
  officialErrors,
  readOfficialExample,
  SHARED_SPEC,
  SKIP_NO_SHARED,
} from '../../support/official-schemas.ts';
import { skipWhen } from '../../support/skip.ts';

// (a) Every official example validates with the product's OWN zod schemas (and, as a sanity
// check of the oracle, with the official schema too).

const EXAMPLES: Record<string, { schema: z.ZodType; name: string; official: OfficialSchemaName }> = {
  'profile-basic.json': { schema: Profile, name: 'Profile', official: 'profile' },
  'grant-fragrance.json': { schema: ConsentGrant, name: 'ConsentGrant', official: 'consent-grant' },
  'grant-travel.json': { schema: ConsentGrant, name: 'ConsentGrant', official: 'consent-grant' },
  'context-modifier-climate.json': {
    schema: ContextModifier,
    name: 'ContextModifier',
    official: 'context-modifier',
  },
  'derived-view-dating.json': { schema: DerivedView, name: 'DerivedView', official: 'derived-view' },
  'discovery-card.json': { schema: DiscoveryCard, name: 'DiscoveryCard', official: 'discovery-card' },
};

function zodIssues(schema: z.ZodType, data: unknown): string[] {
  const r = schema.safeParse(data);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('official examples validate with the product zod schemas', skipWhen(SKIP_NO_SHARED), () => {
  it('the examples directory holds exactly the files this suite knows', () => {
    const files = readdirSync(new URL('examples/', SHARED_SPEC)).filter((f) => f.endsWith('.json'));
    assert.deepEqual(files.sort(), Object.keys(EXAMPLES).sort());
  });

  for (const [file, { schema, name, official }] of Object.entries(EXAMPLES)) {
    it(`${file} validates with the product's zod ${name} schema`, () => {
      const data = readOfficialExample(file);
      assert.deepEqual(zodIssues(schema, data), []);
      assert.deepEqual(officialErrors(official, data), []);
    });

    it(`${file}: zod ${name} parse keeps the document unchanged`, () => {
      const data = readOfficialExample(file);
      assert.deepEqual(schema.parse(data), data);
    });
  }

  describe('each claim and modifier inside profile-basic.json', () => {
    const doc = SKIP_NO_SHARED === false ? (readOfficialExample('profile-basic.json') as Profile) : undefined;
    const claims = doc?.claims ?? [];
    const modifiers = doc?.context_modifiers ?? [];

    it('profile-basic.json has claims and modifiers to check', () => {
      assert.ok(claims.length >= 4, `${claims.length} claims`);
      assert.ok(modifiers.length >= 1, `${modifiers.length} modifiers`);
    });

    for (const [i, c] of claims.entries()) {
      it(`claim #${i} ${c.claim_id} (${c.namespace}.${c.key}) validates with zod Claim and the vocabulary`, () => {
        assert.deepEqual(zodIssues(Claim, c), []);
        assert.deepEqual(officialErrors('claim', c), []);
        assert.deepEqual(vocabularyProblems(Claim.parse(c)), []);
      });
    }

    for (const [i, m] of modifiers.entries()) {
      it(`context modifier #${i} ${m.modifier_id} validates with zod ContextModifier`, () => {
        assert.deepEqual(zodIssues(ContextModifier, m), []);
        assert.deepEqual(officialErrors('context-modifier', m), []);
      });
    }
  });
});
