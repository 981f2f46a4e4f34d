import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type GrantCaller, resourceCaller, type TokenCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { followResource, unfollowResource } from '../../operations/grants/resource-subscriptions.ts';
import type { WatchedView } from '../../operations/grants/watch-grant.ts';
import { ownProposal } from '../../operations/writeback/proposal-status.ts';
import type { McpExchange } from './exchange.ts';
import { notFound, parseContext, parseProposalUri, parseUri } from './resources.ts';

// Which of the resource URIs a grantee asks to be told about it may be told about (issue 25 item
// 2): the resources it may read (resources.ts), nothing else. A URI that is not the caller's is
// dropped exactly as one that names nothing, so the answer (the honored subset) says nothing
// about other clients or profiles.

/** The most URIs one subscription may name; more are an invalid request. */
export const MAX_WATCHED_URIS = 32;

/** The longest URI taken; longer ones are dropped as naming nothing. */
const MAX_URI_BYTES = 2048;

/**
 * The caller's grant and the views of the resources of `uris` it may watch (each view's id is its
 * URI), in the order asked, each once;
 * undefined when the token can watch nothing (a package token has no resources).
 */
export async function watchable(
  deps: Deps,
  caller: TokenCaller,
  uris: readonly string[],
): Promise<{ readonly caller: GrantCaller; readonly views: readonly WatchedView[] } | undefined> {
  if (caller.kind !== 'grant') return undefined;
  const views: WatchedView[] = [];
  const seen = new Set<string>();
  for (const uri of uris) {
    if (seen.has(uri) || Buffer.byteLength(uri) > MAX_URI_BYTES) continue;
    seen.add(uri);
    const view = await viewOf(deps, caller, uri);
    if (view !== undefined) views.push(view);
  }
  return { caller: caller.caller, views };
}

async function viewOf(deps: Deps, caller: TokenCaller, uri: string): Promise<WatchedView | undefined> {
  const proposalId = parseProposalUri(uri);
  if (proposalId !== undefined) {
    if (caller.kind !== 'grant' || !(await ownProposal(deps, caller.caller, proposalId)).ok) return undefined;
    return { id: uri, view: 'proposal', proposalId };
  }
  const target = parseUri(uri);
  if (target === undefined || !resourceCaller(deps, caller, target.profileId).ok) return undefined;
  if (target.view === 'summary') return { id: uri, view: 'summary' };
  const context = parseContext(target.context);
  return context.ok ? { id: uri, view: 'effective', context: context.value } : undefined;
}

/**
 * 2025-11-25 `resources/subscribe` and `resources/unsubscribe`: a resource the caller may read may
 * be followed (one it may not is not there, as for a read); unfollowing what is not followed is
 * no error.
 */
export async function followOrUnfollow(
  deps: Deps,
  exchange: McpExchange,
  params: Record<string, unknown>,
  what: 'follow' | 'unfollow',
): Promise<void> {
  const uri = params['uri'];
  if (typeof uri !== 'string') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `resources/${what === 'follow' ? 'subscribe' : 'unsubscribe'} needs params.uri, a string`,
    );
  }
  const scope = await watchable(deps, exchange.caller, [uri]);
  if (what === 'unfollow') {
    if (scope !== undefined) await unfollowResource(deps, scope.caller, uri);
    return;
  }
  if (scope === undefined || scope.views.length === 0) throw notFound(uri);
  const followed = await followResource(deps, scope.caller, uri);
  if (!followed.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, followed.error.description);
}
