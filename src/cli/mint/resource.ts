import type { ProviderInfo } from '../../operations/deps.ts';
import {
  RESOURCES,
  type ResourceKind,
  resourceOfUrl,
  resourceUrl,
  resourceUrls,
} from '../../operations/tokens/resources.ts';

// `--for KIND` / `--resource URL`: the protected resource (RFC 8707) a token is minted for, its
// `aud`. Each surface accepts only tokens for its own resource (docs/tokens.md), so the choice
// decides where the token works.

export const RESOURCE_OPTIONS = {
  for: { type: 'string' },
  resource: { type: 'string' },
} as const;

const KINDS: readonly string[] = RESOURCES.map((r) => r.kind);

function isKind(kind: string): kind is ResourceKind {
  return KINDS.includes(kind);
}

/** What is wrong with `--for`, known before the store (and so the base URL) is open. */
export function forProblem(kind: string | undefined): string | undefined {
  if (kind === undefined || isKind(kind)) return undefined;
  return `--for must be one of ${KINDS.join(', ')}, not "${kind}"`;
}

export type Audience =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly problem: string };

/** The audience URL of `--for` and/or `--resource` (the HTTP API when neither is given). */
export function audienceOf(
  provider: ProviderInfo,
  flags: { readonly for?: string | undefined; readonly resource?: string | undefined },
): Audience {
  const kind = flags.for ?? 'api';
  if (!isKind(kind)) return { ok: false, problem: forProblem(kind) ?? `unknown --for ${kind}` };
  const byKind = resourceUrl(provider, kind);
  if (flags.resource === undefined) return { ok: true, url: byKind };
  if (resourceOfUrl(provider, flags.resource) === undefined) {
    return {
      ok: false,
      problem: `--resource must be one of this provider's resources: ${resourceUrls(provider).join(', ')}`,
    };
  }
  if (flags.for !== undefined && flags.resource !== byKind) {
    return { ok: false, problem: `--for ${flags.for} is ${byKind}, not --resource ${flags.resource}` };
  }
  return { ok: true, url: flags.resource };
}
