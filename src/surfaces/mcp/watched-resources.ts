import { type GrantCaller, resourceCaller, type TokenCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import type { WatchedView } from '../../operations/grants/watch-grant.ts';
import { parseContext, parseUri } from './resources.ts';

// Which of the resource URIs a grantee asks to be told about it may be told about (issue 25 item
// 2): the resources it may read (resources.ts), nothing else. A URI that is not the caller's is
// dropped exactly as one that names nothing, so the answer (the honored subset) says nothing
// about other clients or profiles.

/** The most URIs one subscription may name; more are an invalid request. */
export const MAX_WATCHED_URIS = 32;

/** The longest URI taken; longer ones are dropped as naming nothing. */
const MAX_URI_BYTES = 2048;

export interface WatchedResource {
  readonly uri: string;
  readonly view: WatchedView;
}

/**
 * The caller's grant and the resources of `uris` it may watch, in the order asked, each once;
 * undefined when the token can watch nothing (a package token has no resources).
 */
export function watchable(
  deps: Deps,
  caller: TokenCaller,
  uris: readonly string[],
): { readonly caller: GrantCaller; readonly resources: readonly WatchedResource[] } | undefined {
  if (caller.kind !== 'grant') return undefined;
  const resources: WatchedResource[] = [];
  const seen = new Set<string>();
  for (const uri of uris) {
    if (seen.has(uri) || Buffer.byteLength(uri) > MAX_URI_BYTES) continue;
    seen.add(uri);
    const view = viewOf(deps, caller, uri);
    if (view !== undefined) resources.push({ uri, view });
  }
  return { caller: caller.caller, resources };
}

function viewOf(deps: Deps, caller: TokenCaller, uri: string): WatchedView | undefined {
  const target = parseUri(uri);
  if (target === undefined || !resourceCaller(deps, caller, target.profileId).ok) return undefined;
  if (target.view === 'summary') return { view: 'summary' };
  const context = parseContext(target.context);
  return context.ok ? { view: 'effective', context: context.value } : undefined;
}
