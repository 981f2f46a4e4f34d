import { randomUUID } from 'node:crypto';
import type { SessionRecord, SubjectRecord } from '../../src/model/account.ts';
import type { AuditEvent } from '../../src/model/audit-event.ts';
import type { Claim } from '../../src/model/claim.ts';
import type { ClientRecord } from '../../src/model/client.ts';
import type { ContextModifier } from '../../src/model/context-modifier.ts';
import type { GrantRecord } from '../../src/model/grant-record.ts';
import type { GrantRequestDraft, GrantRequestRecord } from '../../src/model/grant-request.ts';
import type { ProfileRecord } from '../../src/model/profile-record.ts';
import type { SigningKeyRecord } from '../../src/model/signing-key.ts';
import type {
  RefreshChainRecord,
  RefreshTokenRecord,
  TokenFamilyRecord,
} from '../../src/model/token-family.ts';
import type { Store } from '../../src/store/store.ts';

// Builders for records that are valid per the model schemas (sqlite-store.test.ts checks that), with
// fresh ids on every call so tests never collide, and overrides for what a test cares about.

export const T0 = '2026-03-01T09:00:00.000Z';

/** `T0` plus `minutes`, as an RFC 3339 UTC timestamp. */
export function at(minutes: number): string {
  return new Date(Date.parse(T0) + minutes * 60_000).toISOString();
}

function uid(): string {
  return randomUUID();
}

export function subjectId(): string {
  return `subj_${uid()}`;
}

export function profileRecord(overrides: Partial<ProfileRecord> = {}): ProfileRecord {
  return {
    profile_id: `ppx:profile:${uid()}`,
    subject_id: subjectId(),
    created_at: T0,
    updated_at: T0,
    ...overrides,
  };
}

/** A claim with only the required fields. */
export function minimalClaim(overrides: Partial<Claim> = {}): Claim {
  return {
    claim_id: `ppx:claim:${uid()}`,
    type: 'preference',
    namespace: 'core',
    key: 'novelty_tolerance',
    value: 0.7,
    confidence: 0.8,
    source: { kind: 'user_stated' },
    ...overrides,
  };
}

/** A claim with every optional field set, to check that nested data round-trips. */
export function fullClaim(overrides: Partial<Claim> = {}): Claim {
  return {
    claim_id: `ppx:claim:${uid()}`,
    type: 'preference',
    namespace: 'fragrance',
    key: 'family_preference',
    value: { woody: 0.9, citrus: 0.4, gourmand: -0.2 },
    value_type: 'map<string,float>',
    units: 'weight',
    polarity: 'positive',
    confidence: 0.85,
    stability: 'high',
    source: {
      kind: 'observed',
      origin: 'purchase_history',
      evidence_refs: [`ppx:evidence:${uid()}`],
    },
    explanation: { summary: 'Prefers woody scents', detail: 'Seven of nine purchases were woody.' },
    applicability: { domains: ['fragrance'], contexts: ['occasion'] },
    lifecycle: { last_confirmed_at: T0, expires_at: '2027-03-01T09:00:00.000Z', decay_policy: 'linear' },
    review: { user_visible: true, user_editable: true, review_status: 'confirmed' },
    ...overrides,
  };
}

export function modifier(overrides: Partial<ContextModifier> = {}): ContextModifier {
  return {
    modifier_id: `ppx:modifier:${uid()}`,
    namespace: 'fragrance',
    key: 'summer_lightness',
    effect_type: 'weight_adjustment',
    targets: ['fragrance.family_preference'],
    condition: { season: 'summer', climate: 'hot' },
    effect: { increase: ['citrus', 'aquatic'], decrease: ['gourmand'] },
    confidence: 0.6,
    source: { kind: 'inferred', origin: 'seasonal_pattern' },
    ...overrides,
  };
}

export function grant(overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    grant_id: `ppx:grant:${uid()}`,
    subject_id: subjectId(),
    grantee_id: 'client_perfumery',
    status: 'active',
    granted_at: T0,
    purposes: ['recommendation', 'ranking'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_operations: ['read', 'query'],
    cross_domain_transfer: 'deny',
    writeback_policy: 'review_required',
    profile_id: `ppx:profile:${uid()}`,
    access_mode: 'continuous',
    ...overrides,
  };
}

/** A grant with every optional ConsentGrant field set. */
export function fullGrant(overrides: Partial<GrantRecord> = {}): GrantRecord {
  return grant({
    expires_at: '2026-09-01T09:00:00.000Z',
    allowed_claim_keys: ['novelty_tolerance', 'fragrance.family_preference'],
    redisclosure: 'same_purpose_only',
    audit: { log_access: true, notify_on_writeback: false },
    access_mode: 'single_use',
    ...overrides,
  });
}

export function auditEvent(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    event_id: `ppx:event:${uid()}`,
    at: T0,
    subject_id: subjectId(),
    actor: { kind: 'grantee', id: 'client_perfumery' },
    grant_id: `ppx:grant:${uid()}`,
    action: 'read',
    claim_keys: ['novelty_tolerance'],
    outcome: 'ok',
    ...overrides,
  };
}

export function publicClient(overrides: Partial<ClientRecord> = {}): ClientRecord {
  return {
    client_id: `client_${uid()}`,
    name: 'Perfumery Assistant',
    redirect_uris: ['https://perfumery.example/callback'],
    kind: 'public',
    created_at: T0,
    ...overrides,
  };
}

export function confidentialClient(overrides: Partial<ClientRecord> = {}): ClientRecord {
  return publicClient({
    kind: 'confidential',
    name: 'Travel Planner',
    redirect_uris: ['https://travel.example/cb', 'http://localhost:8787/cb'],
    secret_hash: 'a3f1c2d4e5b6a7980112233445566778899aabbccddeeff00112233445566778',
    ...overrides,
  });
}

/** A client that registered itself (RFC 7591), with its metadata as sent. */
export function dynamicClient(overrides: Partial<ClientRecord> = {}): ClientRecord {
  return publicClient({
    name: 'Wine Cellar',
    redirect_uris: ['https://cellar.example/oauth/cb'],
    source: 'dynamic',
    metadata: {
      client_name: 'Wine Cellar',
      redirect_uris: ['https://cellar.example/oauth/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'profile:read',
      contacts: [],
      jwks: { keys: [{ kty: 'EC', crv: 'P-256', use: 'sig' }] },
    },
    ...overrides,
  });
}

export function signingKey(overrides: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  const kid = `key_${uid()}`;
  const x = 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU';
  const y = 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0';
  return {
    kid,
    alg: 'ES256',
    private_jwk: { kty: 'EC', crv: 'P-256', x, y, d: 'jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI', kid },
    public_jwk: { kty: 'EC', crv: 'P-256', x, y, kid },
    created_at: T0,
    ...overrides,
  };
}

export function subject(overrides: Partial<SubjectRecord> = {}): SubjectRecord {
  const id = uid();
  return {
    subject_id: `subj_${id}`,
    username: `user-${id}`,
    password_hash: `scrypt$16384$8$1$${Buffer.from(id).toString('base64url')}$aGFzaA`,
    created_at: T0,
    ...overrides,
  };
}

export function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    session_hash: `sess_${uid()}`,
    subject_id: subjectId(),
    csrf_token: `csrf_${uid()}`,
    created_at: T0,
    expires_at: at(60 * 12),
    ...overrides,
  };
}

/** A draft without the optional allowed_claim_keys. */
export function grantRequestDraft(overrides: Partial<GrantRequestDraft> = {}): GrantRequestDraft {
  return {
    purposes: ['recommendation'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_operations: ['read', 'query'],
    cross_domain_transfer: 'deny',
    writeback_policy: 'review_required',
    expires_at: at(60 * 24 * 90),
    access_mode: 'continuous',
    ...overrides,
  };
}

/** A pending request, without the optional grant_id and decided_at. */
export function grantRequest(overrides: Partial<GrantRequestRecord> = {}): GrantRequestRecord {
  return {
    grant_request_id: `ppx:grant_request:${uid()}`,
    request_token_hash: `rth_${uid()}`,
    client_id: 'client_perfumery',
    subject_id: subjectId(),
    draft: grantRequestDraft(),
    redirect_uri: 'https://perfumery.example/callback',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    status: 'pending',
    created_at: T0,
    expires_at: at(10),
    ...overrides,
  };
}

export function tokenFamily(overrides: Partial<TokenFamilyRecord> = {}): TokenFamilyRecord {
  return {
    family_id: `fam_${uid()}`,
    client_id: 'client_perfumery',
    subject_id: subjectId(),
    grant_ids: [`ppx:grant:${uid()}`],
    status: 'active',
    created_at: T0,
    ...overrides,
  };
}

export function refreshToken(overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  return {
    token_hash: `rt_${uid()}`,
    family_id: `fam_${uid()}`,
    status: 'current',
    issued_at: T0,
    expires_at: at(60 * 24 * 30),
    ...overrides,
  };
}

export function refreshChain(overrides: Partial<RefreshChainRecord> = {}): RefreshChainRecord {
  return {
    family_id: `fam_${uid()}`,
    seed: `seed_${uid()}`,
    generation: 0,
    issued_at: T0,
    expires_at: at(60 * 24 * 30),
    ...overrides,
  };
}

/** A test body run against a freshly opened store, closed afterwards whatever happens. */
export function withStore(
  open: () => Promise<Store>,
  body: (store: Store) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const store = await open();
    try {
      await body(store);
    } finally {
      await store.close();
    }
  };
}

/** A promise plus the function that resolves it, to hold a transaction open at a known point. */
export function gate(): { readonly wait: Promise<void>; readonly open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}
