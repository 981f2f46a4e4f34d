import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import { ResolutionContext } from '../../model/context-modifier.ts';
import { fail, type PpxFailure, type Result } from '../../model/errors.ts';
import { parseInput } from '../../model/validate.ts';
import {
  resourceCaller,
  resourceProfileId,
  type TokenCaller,
} from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { getEffectiveProfile, getProfileSummary } from '../../operations/reads/effective-query-summary.ts';
import { ownProposal } from '../../operations/writeback/proposal-status.ts';
import { withoutTriggerWords } from '../shared/challenge.ts';
import { answerFailure, httpLevel } from './errors.ts';
import type { McpExchange } from './exchange.ts';

// Read-only snapshots as MCP resources (bindings/mcp.md "Resources"). They run the same
// operations as ppx_get_profile_summary and ppx_get_effective_profile, under the same grant, so
// they honor the same scope. `profile_id` is the pairwise profile id this client sees.
// A resource read cannot carry `grant_id`, so under a package token (where every read must name
// its child) there are no resources: resources/list is empty and a read is refused.

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'ppx://profile/{profile_id}/summary',
    name: 'profile-summary',
    title: 'Profile summary',
    description: 'The redacted summary of the claims the grant lets you see (as ppx_get_profile_summary).',
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'ppx://profile/{profile_id}/effective{?context}',
    name: 'effective-profile',
    title: 'Effective profile',
    description:
      'The claims the grant lets you see, resolved under `context`: a URL-encoded JSON object such as {"occasion":"work"} (as ppx_get_effective_profile).',
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'ppx://proposal/{proposal_id}',
    name: 'proposal',
    title: 'A proposal you made',
    description:
      'What became of a proposal you made under this grant (its proposal_id from ppx_propose_updates): pending, confirmed, rejected or applied, and when it was decided. Subscribe to it to be told when the person decides.',
    mimeType: 'application/json',
  },
] as const;

export async function listResources(deps: Deps, mcp: TokenCaller) {
  const id = resourceProfileId(deps, mcp);
  if (id === undefined) return { resources: [] };
  return {
    resources: [
      {
        uri: `ppx://profile/${encodeURIComponent(id)}/summary`,
        name: 'profile-summary',
        title: 'Profile summary',
        mimeType: 'application/json',
      },
    ],
  };
}

export async function readResource(
  deps: Deps,
  exchange: McpExchange,
  uri: string,
): Promise<ReadResourceResult> {
  const proposalId = parseProposalUri(uri);
  if (proposalId !== undefined) return readProposal(deps, exchange.caller, uri, proposalId);
  const target = parseUri(uri);
  if (!target) throw notFound(uri);
  const under = resourceCaller(deps, exchange.caller, target.profileId);
  if (!under.ok) {
    if (under.error.code === 'not_found') throw notFound(uri);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, under.error.description);
  }
  const caller = under.value;
  let result: Result<unknown>;
  if (target.view === 'summary') {
    result = await getProfileSummary(deps, caller);
  } else {
    const ctx = parseContext(target.context);
    result = ctx.ok ? await getEffectiveProfile(deps, caller, { context: ctx.value }) : ctx;
  }
  if (!result.ok) throw refusal(exchange, result.error);
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(result.value) }] };
}

async function readProposal(
  deps: Deps,
  caller: TokenCaller,
  uri: string,
  proposalId: string,
): Promise<ReadResourceResult> {
  if (caller.kind !== 'grant')
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, PACKAGE_HAS_NO_RESOURCES);
  const proposal = await ownProposal(deps, caller.caller, proposalId);
  if (!proposal.ok) throw notFound(uri);
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(proposal.value) }] };
}

/** The proposal a `ppx://proposal/{proposal_id}` URI names. */
export function parseProposalUri(uri: string): string | undefined {
  const m = /^ppx:\/\/proposal\/([^/?#]+)$/.exec(uri);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

const PACKAGE_HAS_NO_RESOURCES =
  'resources are not served under a token for several grants: use the tools with grant_id';

/** Resources have no `isError` result: a failure is a JSON-RPC error, or a 401/403 (WIRE-NOTES §5). */
function refusal(exchange: McpExchange, failure: PpxFailure): ProtocolError {
  if (answerFailure(failure).kind === 'transport') return httpLevel(exchange, failure);
  return new ProtocolError(ProtocolErrorCode.InvalidParams, withoutTriggerWords(failure.description), {
    code: failure.code,
  });
}

/**
 * A resource that is not there (or not this caller's: the same answer) is -32602 Invalid params
 * with `data.uri`, as 2026-07-28 names it (SEP-2164), in both generations: the SDK's
 * ResourceNotFoundError. 2025-11-25 said -32002; the v2 SDK answers -32602 in both generations
 * (docs/mcp.md).
 */
export function notFound(uri: string): ProtocolError {
  return new ResourceNotFoundError(uri, `no resource at ${uri}`);
}

/** What a resource URI names: the profile (as this client sees its id), the view, and the context. */
export function parseUri(
  uri: string,
): { profileId: string; view: 'summary' | 'effective'; context: string | null } | undefined {
  const m = /^ppx:\/\/profile\/([^/?#]+)\/(summary|effective)(?:\?([^#]*))?$/.exec(uri);
  if (!m) return undefined;
  try {
    const query = new URLSearchParams(m[3] ?? '');
    return {
      profileId: decodeURIComponent(m[1]!),
      view: m[2] as 'summary' | 'effective',
      context: query.get('context'),
    };
  } catch {
    return undefined;
  }
}

export function parseContext(raw: string | null): Result<ResolutionContext> {
  if (raw === null || raw === '') return { ok: true, value: {} };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return fail('invalid_request', 'context must be a URL-encoded JSON object');
  }
  return parseInput(ResolutionContext, json, 'the context');
}
