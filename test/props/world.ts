import { type Claim, qualifiedKey } from '../../src/model/claim.ts';
import type { GrantRecord } from '../../src/model/grant-record.ts';
import { PPX_VERSION } from '../../src/model/vocabulary.ts';
import { childId } from '../../src/operations/child-ids.ts';
import { mintPackage } from '../../src/operations/consent/package-tokens.ts';
import { importProfile } from '../../src/operations/export-import/import-profile.ts';
import { createGrant } from '../../src/operations/grants/consent-grants.ts';
import { DEMO_CLIENTS } from '../../src/operations/seed/demo-profile.ts';
import { issueGrantToken, issueSubjectToken } from '../../src/operations/tokens/issue-tokens.ts';
import { importSecondSubject, SECOND_SUBJECT } from '../support/derived-views.ts';
import { startTestProvider, type TestProvider } from '../support/provider.ts';
import { type Case, type ClaimDraft, type GrantDraftCase, POOL, type Surface } from './case.ts';

// The two providers a redaction run compares, and one case set up in each: the same subject,
// profile and grant, but the claims the grant cannot see exist in the "hidden" provider only.
// Both run on one frozen clock, so every time a provider takes from it agrees.

const DAY = 86_400_000;

export type StoreKind = 'sqlite' | 'postgres';

export interface Pair {
  readonly hidden: TestProvider;
  readonly absent: TestProvider;
  readonly now: Date;
  close(): Promise<void>;
}

export async function startPair(options: { postgres?: { url: string; schemas: [string, string] } } = {}) {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const clock = () => now;
  const start = (i: 0 | 1) =>
    startTestProvider({
      clock,
      ...(options.postgres
        ? { postgres: { url: options.postgres.url, schema: options.postgres.schemas[i] } }
        : {}),
    });
  const [hidden, absent] = [await start(0), await start(1)];
  // Another subject (the demo subject is one already), and a counterpart for compatibility views.
  await importSecondSubject(hidden);
  await importSecondSubject(absent);
  return {
    hidden,
    absent,
    now,
    close: async () => {
      await hidden.close();
      await absent.close();
    },
  } satisfies Pair;
}

/** Sufficient reasons a claim is outside a grant (SPEC §6.5, §13.2), stated apart from src/policy. */
export function outsideGrant(grant: GrantDraftCase, claim: Claim): boolean {
  if (!grant.namespaces.includes(claim.namespace)) return true;
  const keys = grantKeys(grant);
  if (keys !== undefined && !keys.includes(qualifiedKey(claim))) return true;
  if (claim.review?.review_status === 'rejected') return true;
  const home = claim.namespace === 'core' ? (claim.applicability?.domains ?? []) : [claim.namespace];
  const crossDomain = home.length > 0 && !home.some((d) => grant.domains.includes(d));
  if (!crossDomain) return false;
  return (
    grant.crossDomain === 'deny' ||
    grant.crossDomain === 'allow_with_review' ||
    (grant.crossDomain === 'allow_if_same_provider' && claim.source.kind === 'imported')
  );
}

/** The grant's keys, kept to its namespaces; undefined: every key of them. */
export function grantKeys(grant: GrantDraftCase): string[] | undefined {
  if (grant.keys === null) return undefined;
  const keys = grant.keys
    .map((i) => POOL[i] as Claim)
    .filter((c) => grant.namespaces.includes(c.namespace))
    .map((c) => qualifiedKey(c));
  return keys.length > 0 ? keys : undefined;
}

export function claimOf(d: ClaimDraft, id: string): Claim {
  const base = POOL[d.pool] as Claim;
  return {
    ...base,
    claim_id: id,
    confidence: d.confidence,
    source: { kind: d.kind },
    review: { ...base.review, review_status: d.review },
    ...(base.namespace === 'core' && d.domains.length > 0
      ? { applicability: { domains: [...d.domains] } }
      : {}),
  } as Claim;
}

/** A case as one run of it names things: its own subject and claim ids (prefix `ppx:claim:r<n>-`). */
export interface Named {
  readonly n: number;
  readonly subject: string;
  readonly profileId: string;
  readonly claims: readonly Claim[];
  /** Ids of the claims outside the grant, whether or not they exist in the absent provider. */
  readonly outside: ReadonlySet<string>;
  /** Ids of the claims that exist only in the hidden provider. */
  readonly hidden: readonly string[];
}

export function nameCase(c: Case, n: number): Named {
  const claims = c.claims.map((d, i) => claimOf(d, `ppx:claim:r${n}-${i}`));
  // With a second grant, a claim is hidden only when neither grant may show it.
  const outsideAll = (x: Claim) =>
    outsideGrant(c.grant, x) && (c.second === null || outsideGrant(c.second, x));
  const outside = new Set(claims.filter(outsideAll).map((x) => x.claim_id));
  const hidden = claims
    .filter((x, i) => outside.has(x.claim_id) && c.claims[i]?.hideIfOutside)
    .map((x) => x.claim_id);
  return { n, subject: `did:example:prop-${n}`, profileId: `ppx:profile:prop-${n}`, claims, outside, hidden };
}

/** One case in one provider: what the calls need. */
export interface World {
  readonly p: TestProvider;
  readonly named: Named;
  /** The grant, or the refusal that creating it met (then every call is skipped). */
  readonly grant: GrantRecord | undefined;
  readonly refusal?: string;
  /** A token per surface, each for its own resource (`package`: the MCP token when there is none). */
  readonly tokens: Readonly<Record<Surface, string>>;
  /** The child ids a package token names, the case's grant first. */
  readonly children: readonly string[];
  readonly subjectToken: string;
  readonly counterpart?: GrantRecord;
  /** Pending proposals the grantee was told of, oldest first. */
  readonly proposals: string[];
}

export async function setUp(
  p: TestProvider,
  c: Case,
  named: Named,
  withHidden: boolean,
  now: Date,
): Promise<World> {
  const at = now.toISOString();
  const claims = named.claims.filter((x) => withHidden || !named.hidden.includes(x.claim_id));
  const imported = await importProfile(p.deps, {
    ppx_version: PPX_VERSION,
    profile_id: named.profileId,
    subject_id: named.subject,
    provider_id: 'ppx:provider:local',
    created_at: at,
    updated_at: at,
    claims,
  });
  if (!imported.ok) throw new Error(`import: ${imported.error.description}`);
  const subjectToken = (await issueSubjectToken(p.deps, named.subject)).access_token;
  const client = DEMO_CLIENTS[c.grant.client]?.client_id as string;
  const created = await grantOf(p, named.subject, client, c.grant, now);
  const none = { http: '', mcp: '', a2a: '', package: '' };
  if (!created.ok) {
    return {
      p,
      named,
      grant: undefined,
      refusal: created.error.description,
      tokens: none,
      children: [],
      subjectToken,
      proposals: [],
    };
  }
  const grant = created.value;
  const audience = {
    http: undefined,
    mcp: `${p.url}/mcp`,
    a2a: `${p.url}/a2a`,
  };
  const token = async (s: keyof typeof audience) => {
    const t = await issueGrantToken(p.deps, grant, 3600, audience[s]);
    return t.access_token;
  };
  // Minted directly, as a client's exchange would: a single-use grant's tokens alike (that a
  // one-time grant ends with its first exchange is the OAuth flow's, tested in test/e2e/http/consent).
  const tokens = {
    http: await token('http'),
    mcp: await token('mcp'),
    a2a: await token('a2a'),
    package: '',
  };
  // The second grant, and one package token over both (as `ppx mint package` makes it); when
  // the second is refused or either is not active, package steps go with the MCP token.
  const second = c.second ? await grantOf(p, named.subject, client, c.second, now) : undefined;
  const ids = [grant.grant_id, ...(second?.ok ? [second.value.grant_id] : [])];
  const pkg = await mintPackage(p.deps, ids, audience.mcp);
  tokens.package = pkg.ok ? pkg.value.access_token : tokens.mcp;
  const counterpart = await createGrant(
    p.deps,
    {
      subject_id: SECOND_SUBJECT,
      client_id: client,
      purposes: ['matching'],
      allowed_domains: [...c.grant.domains],
      allowed_namespaces: ['core'],
      allowed_operations: ['read'],
      expires_at: new Date(now.getTime() + 30 * DAY).toISOString(),
    },
    'operator',
  );
  return {
    p,
    named,
    grant,
    tokens,
    children: ids.map(childId),
    subjectToken,
    ...(counterpart.ok ? { counterpart: counterpart.value } : {}),
    proposals: [],
  };
}

function grantOf(p: TestProvider, subject: string, client: string, g: GrantDraftCase, now: Date) {
  const keys = grantKeys(g);
  return createGrant(
    p.deps,
    {
      subject_id: subject,
      client_id: client,
      purposes: g.purposes as never,
      allowed_domains: [...g.domains],
      allowed_namespaces: [...g.namespaces],
      ...(keys !== undefined ? { allowed_claim_keys: keys } : {}),
      allowed_operations: (g.singleUse ? g.operations.filter((o) => o !== 'export') : g.operations) as never,
      cross_domain_transfer: g.crossDomain,
      writeback_policy: g.writeback,
      expires_at: new Date(now.getTime() + g.expiresInDays * DAY).toISOString(),
      access_mode: g.singleUse ? 'single_use' : 'continuous',
    },
    'operator',
  );
}
