import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { parseChainToken } from '../../src/auth/refresh-chain.ts';
import { AuditAction } from '../../src/model/audit-event.ts';
import { CONTEXT_DIMENSIONS, Operation, Purpose } from '../../src/model/vocabulary.ts';
import { registerClient } from '../../src/operations/accounts/clients.ts';
import { createSubject, openSession } from '../../src/operations/accounts/subjects-and-sessions.ts';
import type { Caller } from '../../src/operations/callers/caller.ts';
import {
  approveGrantRequestOperation,
  exchangeGrantRequestOperation,
  requestConsentOperation,
} from '../../src/operations/catalog/consent.ts';
import { childId } from '../../src/operations/child-ids.ts';
import { mintPackage } from '../../src/operations/consent/package-tokens.ts';
import { PENDING_PER_APP, PENDING_PER_PERSON } from '../../src/operations/consent/pending-caps.ts';
import type { Deps } from '../../src/operations/deps.ts';
import { createGrant, type GrantDraft } from '../../src/operations/grants/consent-grants.ts';
import { checkAuthorization, startOAuthConsent } from '../../src/operations/oauth/authorize.ts';
import { DEMO_CLIENTS, DEMO_SUBJECT, demoProfile } from '../../src/operations/seed/demo-profile.ts';
import { seedDemoIfEmpty } from '../../src/operations/seed/seed-demo.ts';
import { issueGrantToken, issueSubjectToken } from '../../src/operations/tokens/issue-tokens.ts';
import { createApp } from '../../src/server.ts';
import { cookiePlan } from '../../src/surfaces/shared/session.ts';
import { JwtForge } from './jwt-forge.ts';
import type { Examples, Words } from './schema-values.ts';
import type { Json } from './values.ts';

// What the fuzzer holds before it starts: genuine tokens of every kind (so that a request gets
// past authentication and the fuzz reaches the checks behind it), the provider's words (grant
// ids, namespaces, claim keys), pending consent requests, browser sessions, and the provider's
// signing key to forge tokens that are signed but wrong. Made on the database before the server
// starts, through the operations themselves, as `ppx mint` makes tokens.
//
// Grants the fuzz may end (revoke, refresh reuse, disconnect) are separate "spare" grants: the
// main ones stay active all run long, so that later inputs still reach what they guard. The same
// for the owner: what deletes a profile runs as a spare subject, never as the demo subject.

export const SPARE_SUBJECT = 'ppx:subject:fuzz-spare';
const CONFIDENTIAL = { client_id: 'fuzz-confidential', secret: 'fuzz-confidential-secret-0123456789' };

/** A credential a request can carry: headers to add (none for `none`). */
export interface Credential {
  readonly name: string;
  readonly headers: readonly (readonly [string, string])[];
}

export interface PendingRequest {
  readonly id: string;
  readonly requestToken: string;
  readonly verifier: string;
}

export interface Fixtures {
  readonly base: string;
  readonly credentials: ReadonlyMap<string, Credential>;
  /** Genuine tokens by credential name, the material of forged ones. */
  readonly tokens: ReadonlyMap<string, string>;
  /** The grant ids a token credential acts under (child ids for a package token). */
  readonly grantsOf: ReadonlyMap<string, readonly string[]>;
  readonly forge: JwtForge;
  readonly words: Words;
  /** Whole example values (a claim to propose), by property name. */
  readonly examples: Examples;
  /** Same as `words`, for inputs that end what they name (revoke): only spare grants and tokens. */
  readonly spareWords: Words;
  readonly session: { readonly cookie: string; readonly csrf: string };
  readonly spareSession: { readonly cookie: string; readonly csrf: string };
  readonly confidential: typeof CONFIDENTIAL;
  /** Every route of the server, as Hono lists them (the entry points the fuzz must cover). */
  readonly routes: readonly { readonly method: string; readonly path: string }[];
  /** The MCP tools and their input schemas, as tools/list publishes them (set once serving). */
  tools: { name: string; inputSchema: Record<string, unknown> }[];
  /** A2A task ids of the grants (set once serving). */
  taskIds: string[];
  /** MCP resource URIs, as resources/list names them (set once serving). */
  resourceUris: string[];
  /** The web app's asset names (`/app/assets/:name`), empty when it is not built. */
  readonly assets: readonly string[];
}

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: challengeOf(verifier) };
};

const DAY = 86_400_000;

/** The built web app's files (dist/app/assets), by name. */
function appAssets(): string[] {
  const dir = new URL('../../dist/app/assets/', import.meta.url);
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Makes everything on the provider's store (the server is not running yet). */
/** Apps whose requests make the pool, leaving room for the authorization endpoint's live ones. */
const POOL_APPS = Math.floor((PENDING_PER_PERSON - PENDING_PER_APP) / PENDING_PER_APP);

export async function prepare(deps: Deps, base: string, bodyLimitBytes: number): Promise<Fixtures> {
  await seedDemoIfEmpty(deps);
  const registered = await registerClient(deps, {
    client_id: CONFIDENTIAL.client_id,
    name: 'Fuzz Confidential Client',
    redirect_uris: ['https://client.example/callback'],
    kind: 'confidential',
    secret: CONFIDENTIAL.secret,
  });
  if (!registered.ok) throw new Error(registered.error.description);
  const spare = await createSubject(deps, {
    username: 'fuzz-spare',
    password: 'fuzz-spare-password',
    subject_id: SPARE_SUBJECT,
  });
  if (!spare.ok) throw new Error(spare.error.description);

  const grant = async (draft: Partial<GrantDraft>) => {
    const r = await createGrant(
      deps,
      {
        subject_id: DEMO_SUBJECT,
        client_id: 'fragrance-demo',
        purposes: ['recommendation'],
        allowed_domains: ['fragrance'],
        allowed_namespaces: ['core', 'fragrance'],
        allowed_operations: ['read', 'query'],
        expires_at: new Date(Date.now() + 30 * DAY).toISOString(),
        ...draft,
      },
      'operator',
    );
    if (!r.ok) throw new Error(r.error.description);
    return r.value;
  };
  const reader = await grant({});
  const writer = await grant({
    allowed_operations: ['read', 'query', 'propose_update', 'confirm_update'],
    purposes: ['recommendation', 'propose_update'],
    writeback_policy: 'review_required',
  });
  const exporter = await grant({
    allowed_operations: ['read', 'export'],
    allowed_namespaces: ['core', 'fragrance', 'travel'],
  });
  const matcher = await grant({ purposes: ['matching', 'recommendation'] });
  const travel = await grant({
    client_id: 'travel-demo',
    allowed_domains: ['travel'],
    allowed_namespaces: ['core', 'travel'],
    cross_domain_transfer: 'allow_with_review',
  });
  // The counterpart of a compatibility view: a second subject's grant to the same grantee.
  const counterpart = await grant({ subject_id: SPARE_SUBJECT, purposes: ['matching', 'recommendation'] });
  const spares = [];
  for (let i = 0; i < 4; i++) spares.push(await grant({}));

  const mcp = `${base}/mcp`;
  const a2a = `${base}/a2a`;
  const tokens = new Map<string, string>();
  const grantToken = async (g: { grant_id: string; grantee_id: string }, audience?: string) =>
    (await issueGrantToken(deps, g, undefined, audience)).access_token;
  tokens.set('subject', (await issueSubjectToken(deps, DEMO_SUBJECT)).access_token);
  tokens.set('spare-subject', (await issueSubjectToken(deps, SPARE_SUBJECT)).access_token);
  tokens.set('grant-reader', await grantToken(reader));
  tokens.set('grant-writer', await grantToken(writer));
  tokens.set('grant-exporter', await grantToken(exporter));
  tokens.set('grant-matcher', await grantToken(matcher));
  tokens.set('grant-travel', await grantToken(travel));
  tokens.set('grant-spare', await grantToken(spares[0]!));
  tokens.set('mcp-reader', await grantToken(reader, mcp));
  tokens.set('mcp-writer', await grantToken(writer, mcp));
  tokens.set('mcp-spare', await grantToken(spares[1]!, mcp));
  tokens.set('a2a-reader', await grantToken(reader, a2a));
  tokens.set('a2a-writer', await grantToken(writer, a2a));
  tokens.set('a2a-matcher', await grantToken(matcher, a2a));
  const pkg = await mintPackage(deps, [reader.grant_id, writer.grant_id, exporter.grant_id], mcp);
  if (!pkg.ok) throw new Error(pkg.error.description);
  tokens.set('mcp-package', pkg.value.access_token);
  const sparePkg = await mintPackage(deps, [spares[2]!.grant_id, spares[3]!.grant_id], mcp);
  if (!sparePkg.ok) throw new Error(sparePkg.error.description);
  tokens.set('mcp-spare-package', sparePkg.value.access_token);

  const grantsOf = new Map<string, readonly string[]>([
    ['mcp-reader', [reader.grant_id]],
    ['mcp-writer', [writer.grant_id]],
    ['mcp-spare', [spares[1]!.grant_id]],
    ['mcp-package', [reader, writer, exporter].map((g) => childId(g.grant_id))],
    ['mcp-spare-package', [spares[2]!, spares[3]!].map((g) => childId(g.grant_id))],
  ]);

  // Pending consent requests (the consent page and the decisions decide them), and spare grants
  // that went through the whole consent-v2 flow, for their refresh tokens.
  const owner: Caller = { kind: 'subject', subjectId: DEMO_SUBJECT };
  const ask = async (clientId = 'fragrance-demo') => {
    const { verifier, challenge } = pkce();
    const input = requestConsentOperation.input.parse({
      client_id: clientId,
      subject_id: DEMO_SUBJECT,
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: ['read', 'query'],
      redirect_uri: DEMO_CLIENTS[0].redirect_uris[0],
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const r = await requestConsentOperation.run(deps, undefined, input);
    if (!r.ok) throw new Error(r.error.description);
    const v = r.value as { grant_request_id: string; request_token: string };
    return { id: v.grant_request_id, requestToken: v.request_token, verifier };
  };
  // Consent requests of the authorization endpoint: single ones and grant packages (two details).
  const oauthAsk = async (details: number) => {
    const { challenge } = pkce();
    const detail = (i: number) => ({
      type: 'ppx_grant',
      detail_id: `d${i}`,
      purposes: ['recommendation'],
      allowed_domains: ['fragrance'],
      allowed_namespaces: ['core', 'fragrance'],
      allowed_operations: ['read'],
    });
    const params: Record<string, string[]> = {
      response_type: ['code'],
      client_id: ['fragrance-demo'],
      redirect_uri: [DEMO_CLIENTS[0].redirect_uris[0]],
      code_challenge: [challenge],
      code_challenge_method: ['S256'],
      state: ['fuzz'],
      authorization_details: [JSON.stringify(Array.from({ length: details }, (_, i) => detail(i)))],
    };
    const check = await checkAuthorization(deps, params, { allowDev: false });
    if (check.kind !== 'valid') throw new Error(`authorization request refused: ${JSON.stringify(check)}`);
    const created = await startOAuthConsent(deps, DEMO_SUBJECT, check.request);
    if (!created.ok) throw new Error(created.error.description);
    return created.value.grant_request_id;
  };
  const refreshTokens: string[] = [];
  const flowed: PendingRequest[] = [];
  for (let i = 0; i < 3; i++) {
    const p = await ask();
    const approved = await approveGrantRequestOperation.run(deps, owner, { grant_request_id: p.id });
    if (!approved.ok) throw new Error(approved.error.description);
    const exchanged = await exchangeGrantRequestOperation.run(deps, undefined, {
      grant_request_id: p.id,
      request_token: p.requestToken,
      code_verifier: p.verifier,
      client_id: 'fragrance-demo',
    });
    if (!exchanged.ok) throw new Error(exchanged.error.description);
    const t = exchanged.value as { refresh_token?: string };
    if (t.refresh_token) refreshTokens.push(t.refresh_token);
    flowed.push(p);
  }
  // The pool waits for the person: at most PENDING_PER_APP per app and PENDING_PER_PERSON in all
  // (issue 22 item 10), so it is spread over apps of its own, asked after the flows above.
  const pending: PendingRequest[] = [];
  for (let app = 0; app < POOL_APPS; app++) {
    const clientId = `fuzz-pool-${app}`;
    const made = await registerClient(deps, {
      client_id: clientId,
      name: `Fuzz pool app ${app}`,
      redirect_uris: [...DEMO_CLIENTS[0].redirect_uris],
    });
    if (!made.ok) throw new Error(made.error.description);
    for (let i = 0; i < PENDING_PER_APP; i++) pending.push(await ask(clientId));
  }
  // Past the app's cap the authorization endpoint withdraws its oldest: some of these are expired.
  const oauthPending: string[] = [];
  for (let i = 0; i < 4; i++) oauthPending.push(await oauthAsk(1), await oauthAsk(2));

  const plan = cookiePlan(base);
  const sessionOf = async (subject: string) => {
    const s = await openSession(deps, subject);
    return { cookie: `${plan.session}=${s.secret}`, csrf: s.session.csrf_token };
  };
  const session = await sessionOf(DEMO_SUBJECT);
  const spareSession = await sessionOf(SPARE_SUBJECT);

  const credentials = new Map<string, Credential>();
  credentials.set('none', { name: 'none', headers: [] });
  for (const [name, token] of tokens) {
    credentials.set(name, { name, headers: [['Authorization', `Bearer ${token}`]] });
  }
  credentials.set('session', { name: 'session', headers: [['Cookie', session.cookie]] });
  credentials.set('session+csrf', {
    name: 'session+csrf',
    headers: [
      ['Cookie', session.cookie],
      ['X-CSRF-Token', session.csrf],
      ['Origin', new URL(base).origin],
    ],
  });
  credentials.set('spare-session', { name: 'spare-session', headers: [['Cookie', spareSession.cookie]] });

  const signing = (await deps.store.listSigningKeys())[0];
  if (!signing) throw new Error('the provider has no signing key');

  const demoClaims = demoProfile(new Date()).claims ?? [];
  const claimKeys = demoClaims.map((c) => (c.namespace === 'core' ? c.key : `${c.namespace}.${c.key}`));
  const mainGrants = [reader, writer, exporter, matcher, travel].map((g) => g.grant_id);
  const spareGrants = spares.map((g) => g.grant_id);
  const common: Record<string, readonly string[]> = {
    client_id: [
      'fragrance-demo',
      'fragrance-demo',
      'travel-demo',
      CONFIDENTIAL.client_id,
      'unknown-client',
      'https://localhost/client.json',
    ],
    client_secret: [CONFIDENTIAL.secret, 'wrong-secret-0123456789'],
    subject_id: [DEMO_SUBJECT, SPARE_SUBJECT, 'did:example:nobody'],
    counterpart_grant_id: [counterpart.grant_id, ...mainGrants],
    namespace: ['core', 'fragrance', 'travel', 'unknown_ns', 'Core'],
    key: [...claimKeys, ...demoClaims.map((c) => c.key), 'fragrance.unknown_key'],
    claim_id: [...demoClaims.map((c) => c.claim_id), 'ppx:claim:unknown'],
    purpose: Purpose.options,
    domain: ['fragrance', 'travel', 'core', 'music'],
    operation: Operation.options,
    action: AuditAction.options,
    grant_request_id: [
      ...pending.map((p) => p.id),
      ...flowed.map((p) => p.id),
      ...oauthPending,
      'ppx:grant_request:unknown',
    ],
    request_token: [...pending, ...flowed].map((p) => p.requestToken),
    code_verifier: [...pending, ...flowed].map((p) => p.verifier),
    redirect_uri: [
      ...DEMO_CLIENTS.flatMap((c) => c.redirect_uris),
      'https://client.example/callback',
      'https://evil.example/cb',
    ],
    code_challenge_method: ['S256', 'S256', 'S256', 'plain', 's256'],
    code_challenge: [
      challengeOf(pending[0]!.verifier),
      challengeOf(pending[0]!.verifier),
      'short',
      'x'.repeat(129),
    ],
    context_key: CONTEXT_DIMENSIONS,
    resource: [base, `${base}/mcp`, `${base}/a2a`, `${base}/v1`, 'https://other.example/mcp'],
    scope: ['ppx:read', 'ppx:query', 'ppx:propose_update', 'ppx:read ppx:query', 'openid', ''],
    grant_type: ['authorization_code', 'refresh_token', 'client_credentials', 'password', ''],
    response_type: ['code', 'token', 'code id_token', ''],
    token_type_hint: ['access_token', 'refresh_token', 'bogus'],
    decision: ['approve', 'reject', 'preview', 'maybe', ''],
  };
  const grantWords = [
    ...mainGrants,
    ...spareGrants,
    ...[...mainGrants, ...spareGrants].map(childId),
    'ppx:grant:unknown',
    'unknown',
  ];
  const spareGrantWords = [...spareGrants, ...spareGrants.map(childId), 'ppx:grant:unknown'];
  const allTokens = [...tokens.values()];
  const wordsWith = (
    grants: readonly string[],
    tokenWords: readonly string[],
    refresh: readonly string[],
  ): Words => {
    const table: Record<string, readonly string[]> = {
      ...common,
      grant_id: grants,
      token: tokenWords,
      refresh_token: [...refresh, ...refresh.flatMap(forgedChainTokens), 'not-a-refresh-token'],
    };
    return (key) => {
      const k = key.toLowerCase();
      return (
        table[k] ??
        table[k.replace(/^(allowed|requested)_/, '').replace(/s$/, '')] ??
        table[k.replace(/s$/, '')] ??
        (k.endsWith('grant_id') || k.endsWith('grant_ids') ? grants : undefined) ??
        (k.endsWith('_key') || k.endsWith('_keys') ? table['key'] : undefined)
      );
    };
  };
  const spareTokens = [
    tokens.get('grant-spare')!,
    tokens.get('mcp-spare')!,
    tokens.get('mcp-spare-package')!,
  ];

  const app = createApp(deps, { bodyLimitBytes, log: () => undefined, signupEnabled: true });
  const seen = new Set<string>();
  const routes: { method: string; path: string }[] = [];
  for (const r of app.routes) {
    const k = `${r.method} ${r.path}`;
    // `ALL` entries are middleware (CORS, rate limits, the access log), not entry points.
    if (r.method === 'ALL' || seen.has(k)) continue;
    seen.add(k);
    routes.push({ method: r.method, path: r.path });
  }

  // Claims as the demo profile holds them: what a proposal names (a key, a value of its type).
  const claims = JSON.parse(JSON.stringify(demoClaims)) as Json[];
  const exampleTable: Record<string, readonly Json[]> = { claims, claim: claims };
  const examples: Examples = (key) => exampleTable[key];

  return {
    base,
    credentials,
    grantsOf,
    examples,
    tokens,
    forge: new JwtForge(signing.private_jwk as Record<string, unknown>),
    words: wordsWith(grantWords, [...allTokens, 'not-a-token'], refreshTokens),
    spareWords: wordsWith(spareGrantWords, [...spareTokens, 'not-a-token'], refreshTokens),
    session,
    spareSession,
    confidential: CONFIDENTIAL,
    routes,
    tools: [],
    taskIds: [],
    resourceUris: [],
    assets: appAssets(),
  };
}

/**
 * Near misses of a refresh chain token (auth/refresh-chain.ts): its next generation and a spent
 * one with its own mac, and its own generation with another mac. The fuzz checks that no answer to
 * them is a 5xx, whatever else a request carries; refresh-chains.test.ts that they end nothing.
 */
function forgedChainTokens(token: string): string[] {
  const named = parseChainToken(token);
  if (named === undefined) return [];
  const { familyId, generation, mac } = named;
  return [
    `${familyId}~${generation + 1}~${mac}`,
    `${familyId}~${Math.max(0, generation - 1)}~${mac.split('').reverse().join('')}`,
    `${familyId}~${generation}~${mac.slice(1)}A`,
  ];
}
