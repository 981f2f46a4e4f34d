import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadConfig } from '../../../src/config.ts';
import type { EvidenceRef } from '../../../src/model/evidence-ref.ts';
import type { GrantRecord } from '../../../src/model/grant-record.ts';
import { PPX_OBJECTS, toJsonSchema } from '../../../src/model/json-schema.ts';
import type { Deps } from '../../../src/operations/deps.ts';
import { exportProfile } from '../../../src/operations/export-import/export-profile.ts';
import { createGrant } from '../../../src/operations/grants/consent-grants.ts';
import { publishGrant } from '../../../src/operations/grants/published-grant.ts';
import { discoveryCard, listExtensions } from '../../../src/operations/provider/discovery.ts';
import { getEffectiveProfile, queryClaims } from '../../../src/operations/reads/effective-query-summary.ts';
import { DEMO_SUBJECT, demoProfile } from '../../../src/operations/seed/demo-profile.ts';
import { seedDemo } from '../../../src/operations/seed/seed-demo.ts';
import { openProvider } from '../../../src/provider.ts';
import {
  type OfficialSchemaName,
  officialErrors,
  readOfficialExample,
  SKIP_NO_SHARED,
} from '../../support/official-schemas.ts';

// (b) Every PPX object the product publishes a JSON Schema for: the published schema is
// 2020-12 and accepts what the product produces, and the OFFICIAL schema accepts it too.

type Name = keyof typeof PPX_OBJECTS;
const NAMES = Object.keys(PPX_OBJECTS) as Name[];
const NOW = new Date('2026-06-01T12:00:00.000Z');

let deps: Deps;
let grant: GrantRecord;
const instances = new Map<Name, { label: string; value: unknown }[]>();

function add(name: Name, label: string, value: unknown) {
  instances.set(name, [...(instances.get(name) ?? []), { label, value: structuredClone(value) }]);
}

function unwrap<T>(r: { ok: true; value: T } | { ok: false; error: { description: string } }): T {
  if (!r.ok) throw new Error(r.error.description);
  return r.value;
}

before(async () => {
  const config = unwrap(loadConfig({ dbPath: ':memory:', baseUrl: 'https://ppx.example.test' }, {}));
  deps = await openProvider(config, () => NOW);
  await seedDemo(deps);
  grant = unwrap(
    await createGrant(
      deps,
      {
        subject_id: DEMO_SUBJECT,
        client_id: 'fragrance-demo',
        purposes: ['recommendation', 'ranking'],
        allowed_domains: ['fragrance'],
        allowed_namespaces: ['core', 'fragrance'],
        allowed_claim_keys: ['novelty_tolerance', 'fragrance.family_preference'],
        allowed_operations: ['read', 'query', 'export'],
        expires_at: '2026-07-01T12:00:00.000Z',
      },
      'operator',
    ),
  );
  const demo = demoProfile(NOW);
  add('profile', 'demoProfile(now)', demo);
  add(
    'profile',
    'subject export',
    unwrap(await exportProfile(deps, { kind: 'subject', subjectId: DEMO_SUBJECT })),
  );
  const grantee = { kind: 'grant' as const, clientId: 'fragrance-demo', grant };
  add('profile', 'grantee export', unwrap(await exportProfile(deps, grantee)));
  for (const c of demo.claims ?? []) add('claim', c.claim_id, c);
  for (const m of demo.context_modifiers ?? []) add('context-modifier', m.modifier_id, m);
  add('consent-grant', 'publishGrant (active)', publishGrant(grant, DEMO_SUBJECT, NOW));
  add(
    'consent-grant',
    'publishGrant (expired)',
    publishGrant(grant, 'ppx:subject:x', new Date('2027-01-01')),
  );
  add(
    'consent-grant',
    'publishGrant (revoked)',
    publishGrant({ ...grant, status: 'revoked', revoked_at: NOW.toISOString() }, DEMO_SUBJECT, NOW),
  );
  add('discovery-card', 'discoveryCard(provider)', discoveryCard(deps.provider));
  for (const e of listExtensions().extensions) add('extension-descriptor', e.namespace, e);
  add('effective-profile', 'getEffectiveProfile', unwrap(await getEffectiveProfile(deps, grantee, {})));
  add(
    'effective-profile',
    'queryClaims (narrowed, with context)',
    unwrap(
      await queryClaims(deps, grantee, {
        requested_keys: ['novelty_tolerance'],
        context: { climate: 'hot_humid' },
        min_confidence: 0.1,
      }),
    ),
  );
  // The product has no producer of evidence refs or derived views yet: build them through the
  // product's own zod schemas (parse output is what the product would emit).
  const evidence: EvidenceRef = {
    evidence_id: 'ppx:evidence:quiz:12',
    kind: 'pairwise_choice',
    timestamp: NOW.toISOString(),
    visibility: 'provider_only',
    summary: "User preferred scent A over scent B in a 'date night' context.",
  };
  add('evidence-ref', 'EvidenceRef.parse', PPX_OBJECTS['evidence-ref'].parse(evidence));
  if (SKIP_NO_SHARED === false) {
    add(
      'derived-view',
      'DerivedView.parse(example)',
      PPX_OBJECTS['derived-view'].parse(readOfficialExample('derived-view-dating.json')),
    );
  }
});

after(async () => {
  await deps?.store.close();
});

function publishedValidator(name: Name) {
  const addFormats = addFormatsModule as unknown as (a: Ajv2020) => void;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(toJsonSchema(PPX_OBJECTS[name]));
}

describe('published JSON Schemas (PPX_OBJECTS)', () => {
  it('covers the nine PPX objects of the official schemas', () => {
    assert.deepEqual([...NAMES].sort(), [
      'claim',
      'consent-grant',
      'context-modifier',
      'derived-view',
      'discovery-card',
      'effective-profile',
      'evidence-ref',
      'extension-descriptor',
      'profile',
    ]);
  });

  for (const name of NAMES) {
    it(`${name}: published schema declares $schema 2020-12 and is an object schema`, () => {
      const schema = toJsonSchema(PPX_OBJECTS[name]);
      assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(schema['type'], 'object');
      assert.ok(Array.isArray(schema['required']) && (schema['required'] as unknown[]).length > 0);
    });

    it(`${name}: product-produced instances validate against the OFFICIAL and the published schema`, {
      skip: SKIP_NO_SHARED,
    }, () => {
      const list = instances.get(name) ?? [];
      assert.ok(list.length > 0, `no instance built for ${name}`);
      const validate = publishedValidator(name);
      for (const { label, value } of list) {
        assert.deepEqual(
          officialErrors(name as OfficialSchemaName, value),
          [],
          `${name} ${label} (official)`,
        );
        assert.equal(
          validate(value),
          true,
          `${name} ${label} (published): ${JSON.stringify(validate.errors)}`,
        );
        assert.equal(PPX_OBJECTS[name].safeParse(value).success, true, `${name} ${label} (zod)`);
      }
    });
  }

  it('realistic instances are not trivially empty', () => {
    const profiles = instances.get('profile') ?? [];
    const subjectExport = profiles.find((p) => p.label === 'subject export')?.value as {
      claims: unknown[];
      consent_grants: unknown[];
    };
    assert.equal(subjectExport.claims.length, 20);
    assert.equal(subjectExport.consent_grants.length, 1);
    const granteeExport = profiles.find((p) => p.label === 'grantee export')?.value as {
      claims: { claim_id: string }[];
      subject_id: string;
    };
    assert.deepEqual(granteeExport.claims.map((c) => c.claim_id).sort(), [
      'ppx:claim:demo-core-novelty',
      'ppx:claim:demo-frag-family',
    ]);
    assert.notEqual(granteeExport.subject_id, DEMO_SUBJECT);
    const eff = instances.get('effective-profile')?.[1]?.value as { claims: { key: string }[] };
    assert.deepEqual(
      eff.claims.map((c) => c.key),
      ['novelty_tolerance'],
    );
  });

  it('config refuses a base URL the discovery card could not publish (raw space, not http)', () => {
    for (const baseUrl of [
      'https://ppx.example.test/a b',
      'ftp://ppx.example.test',
      'https://x.test/?q=1',
      'nope',
    ]) {
      const r = loadConfig({ dbPath: ':memory:', baseUrl }, {});
      assert.equal(r.ok, false, baseUrl);
    }
    const ok = unwrap(loadConfig({ dbPath: ':memory:', baseUrl: 'https://ppx.example.test/base/' }, {}));
    assert.equal(ok.baseUrl, 'https://ppx.example.test/base');
  });
});
