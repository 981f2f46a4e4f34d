import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { GrantRecord } from '../../../../src/model/grant-record.ts';
import { mintPackage } from '../../../../src/operations/consent/package-tokens.ts';
import type { GrantDraft } from '../../../../src/operations/grants/consent-grants.ts';
import {
  type Detail,
  decisionForm,
  exchangeCode,
  packageRequest,
  postDecision,
} from '../../../support/grant-packages.ts';
import { mcpUrl } from '../../../support/mcp-client.ts';
import { get, pkce, publicClient, signedInCookie } from '../../../support/oauth-flow.ts';
import type { TestProvider } from '../../../support/provider.ts';

// Grant packages on /mcp (PDPP MCP read profile, WIRE-NOTES §4–§5). Not a *.test.ts file.

export const ENDED = (id: string) =>
  `Access to grant ${id} has ended. Do not retry this call. Ask the owner if this access is needed again.`;

/**
 * One package token for the MCP resource over one child per draft (the TestProvider's grant
 * defaults, overridden), obtained as a client obtains it (issue 5: tests use real package tokens
 * from the authorization server): one authorization request with a `ppx_grant` detail per draft,
 * approved on the consent page by the signed-in subject, the code exchanged at /oauth/token.
 * A single detail is an ordinary grant there (WIRE-NOTES §4), so a one-child package comes from
 * the operator path instead (`mintPackage`, as `ppx mint package`), the only way to get one.
 * `clientId` is a registered public client (a new one when omitted).
 */
export async function mcpPackage(
  p: TestProvider,
  drafts: readonly Partial<GrantDraft>[],
  clientId?: string,
): Promise<{ grants: GrantRecord[]; token: string; clientId: string }> {
  const client = clientId ?? (await publicClient(p));
  if (drafts.length === 1) {
    const { grant } = await p.grant({ ...drafts[0], client_id: client });
    const minted = await mintPackage(p.deps, [grant.grant_id], mcpUrl(p));
    assert.ok(minted.ok, minted.ok ? '' : minted.error.description);
    return { grants: [grant], token: minted.value.access_token, clientId: client };
  }
  const tokens = await packageThroughAs(p, await signedInCookie(p), client, drafts.map(detailOf));
  const grants: GrantRecord[] = [];
  for (const outcome of tokens.pdpp_detail_outcomes as { grant_ids: string[] }[]) {
    assert.equal(outcome.grant_ids.length, 1, 'every element was approved');
    const grant = await p.deps.store.getGrant(`ppx:grant:${outcome.grant_ids[0]}`);
    assert.ok(grant);
    grants.push(grant);
  }
  return { grants, token: tokens.access_token, clientId: client };
}

/** The `ppx_grant` authorization detail asking for what a grant draft describes. */
function detailOf(draft: Partial<GrantDraft>, index: number): Detail {
  const { allowed_claim_keys, cross_domain_transfer, writeback_policy, access_mode, ...rest } = draft;
  const { purposes, allowed_domains, allowed_namespaces, allowed_operations, ...unsupported } = rest;
  assert.deepEqual(
    Object.keys(unsupported),
    [],
    'a package draft names only what a ppx_grant detail can ask',
  );
  return {
    type: 'ppx_grant',
    detail_id: `child-${index}`,
    purposes: purposes ?? ['recommendation'],
    allowed_domains: allowed_domains ?? ['fragrance'],
    allowed_namespaces: allowed_namespaces ?? ['core', 'fragrance'],
    allowed_operations: allowed_operations ?? ['read', 'query'],
    ...(allowed_claim_keys !== undefined ? { allowed_claim_keys } : {}),
    ...(cross_domain_transfer !== undefined ? { cross_domain_transfer } : {}),
    ...(writeback_policy !== undefined ? { writeback_policy } : {}),
    ...(access_mode !== undefined ? { access_mode } : {}),
  };
}

/** Ends a grant the ways the read profile names: revoked, expired (any past deadline). */
export async function revoke(p: TestProvider, grantId: string): Promise<void> {
  assert.ok(await p.store.revokeGrant(grantId, new Date().toISOString()));
}
export async function expire(p: TestProvider, grantId: string): Promise<void> {
  assert.ok(await p.store.shortenGrantExpiry(grantId, new Date(Date.now() - 60_000).toISOString()));
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
export type Json = any;

/** A tools/call whose structuredContent is checked against the tool's published output schema. */
export class Caller {
  readonly #client: Client;
  readonly #schemas = new Map<string, (x: unknown) => boolean>();
  /** Every response text seen, for the subject-id sweep (item 6). */
  readonly seen: string[] = [];

  constructor(client: Client) {
    this.#client = client;
  }

  async init(): Promise<void> {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
    const { tools } = await this.#client.listTools();
    this.seen.push(JSON.stringify(tools), this.#client.getInstructions() ?? '');
    for (const t of tools) this.#schemas.set(t.name, ajv.compile(t.outputSchema as object));
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<Json> {
    const r = (await this.#client.callTool({ name, arguments: args })) as Json;
    this.seen.push(JSON.stringify(r));
    const validate = this.#schemas.get(name) as ((x: unknown) => boolean) & { errors?: unknown };
    assert.ok(validate(r.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`);
    return r;
  }
}

/** The internal subject id appears in no grantee-visible text (read profile §3). */
export function assertNoSubjectId(p: TestProvider, texts: readonly string[]): void {
  assert.ok(texts.length > 0);
  for (const text of texts)
    assert.ok(!text.includes(p.subjectId), `internal subject id in: ${text.slice(0, 200)}`);
}

/**
 * The real authorization-server flow for a package bound to the MCP resource: authorize with
 * several authorization_details and `resource=${base}/mcp`, approve on the consent page, exchange.
 */
export async function packageThroughAs(
  p: TestProvider,
  cookie: string,
  clientId: string,
  details: readonly Detail[],
): Promise<Json> {
  const { verifier, challenge } = pkce();
  const a = await get(packageRequest(p, clientId, challenge, details, { resource: mcpUrl(p) }), cookie);
  assert.equal(a.status, 302, await a.text());
  const consent = new URL(a.headers.get('location')!, p.url);
  const page = await get(consent.href, cookie);
  const html = await page.text();
  assert.equal(page.status, 200, html);
  const { action, fields } = decisionForm(html, consent);
  fields.set('decision', 'decide');
  const posted = await postDecision(action, cookie, fields);
  assert.equal(posted.status, 303, posted.html);
  const code = new URL(posted.location!).searchParams.get('code');
  assert.ok(code, posted.location ?? '');
  const tokens = await exchangeCode(p, clientId, code, verifier);
  assert.equal(tokens.status, 200, tokens.text);
  return tokens.json;
}
