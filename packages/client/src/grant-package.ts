import type { PpxClient } from './client.ts';
import { bodyOf } from './http.ts';
import { type ClientError, fail, ok, type Result } from './result.ts';
import type { Context, EffectiveProfile, EffectiveRequest, ProfileSummary, QueryRequest } from './types.ts';

// The reads of a grant package's children (WIRE-NOTES §4–§5). The provider's HTTP API refuses a
// package token (its endpoints name no grant), so each read is one MCP tool call naming its child
// by `grant_id`. MCP 2026-07-28 is used: every request stands alone (no initialize, no session),
// which is all a read needs. No result is ever computed across children.

const PROTOCOL = '2026-07-28';
const VERSION = '0.1.0';

/** A grant package held by this client, by its key in the token store (`PackageTokens.key`). */
export class GrantPackage {
  readonly #client: PpxClient;
  readonly key: string;
  #id = 0;

  constructor(client: PpxClient, key: string) {
    this.#client = client;
    this.key = key;
  }

  /** The children (child ids) the package token covers, those the person has since withdrawn too. */
  async children(): Promise<readonly string[]> {
    return (await this.#client.store.get(this.key))?.grantIds ?? [];
  }

  /** One child's redacted summary. */
  summary(childId: string): Promise<Result<ProfileSummary>> {
    return this.#tool<ProfileSummary>('ppx_get_profile_summary', { grant_id: childId });
  }

  /** One child's claims, filtered as `Grant.query` filters them. */
  query(childId: string, query: QueryRequest = {}): Promise<Result<EffectiveProfile>> {
    return this.#tool<EffectiveProfile>('ppx_query_claims', { ...query, grant_id: childId });
  }

  /** One child's effective profile under a context. */
  effective(
    childId: string,
    context?: Context,
    options: Omit<EffectiveRequest, 'context'> = {},
  ): Promise<Result<EffectiveProfile>> {
    return this.#tool<EffectiveProfile>('ppx_get_effective_profile', {
      ...options,
      ...(context !== undefined ? { context } : {}),
      grant_id: childId,
    });
  }

  /** Ends every child of the package at once, and forgets its tokens (`client.revoke(key)`). */
  disconnect(): Promise<Result<void>> {
    return this.#client.revoke(this.key);
  }

  /**
   * One `tools/call`: the tool's `data`, or its error (`package_child_inactive` when the person
   * withdrew that child; the others go on) as a value.
   */
  async #tool<T>(name: string, args: Record<string, unknown>): Promise<Result<T>> {
    const endpoint = this.#client.provider.card.transport_bindings?.mcp?.server_uri;
    if (endpoint === undefined) return fail('not_found', 'this provider names no MCP endpoint');
    this.#id += 1;
    const message = {
      jsonrpc: '2.0',
      id: this.#id,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': PROTOCOL,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: '@ppx-provider/client', version: VERSION },
        },
      },
    };
    const r = await this.#client.authorized(this.key, 'POST', endpoint, message, {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    });
    if (!r.ok) return r;
    if (r.value.status !== 200) return bodyOf<never>(r.value);
    return resultOf<T>(r.value.json);
  }
}

/** A JSON-RPC answer's tool result: `structuredContent.data`, or the error it carries. */
function resultOf<T>(json: unknown): Result<T> {
  const rpc = json as {
    error?: { message?: string };
    result?: {
      isError?: boolean;
      structuredContent?: { data?: T; error?: { code: string; message: string; grant_id?: string } };
    };
  };
  if (rpc?.error !== undefined)
    return fail('invalid_request', rpc.error.message ?? 'the MCP call was refused');
  const content = rpc?.result?.structuredContent;
  if (rpc?.result?.isError === true && content?.error !== undefined) {
    const e = content.error;
    const code = e.code as ClientError['code'];
    return fail(code, e.message, e.grant_id !== undefined ? { grantId: e.grant_id } : {});
  }
  if (content?.data === undefined) return fail('invalid_response', 'the MCP answer carries no data');
  return ok(content.data);
}
