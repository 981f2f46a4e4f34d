import { z } from 'zod';
import { sha256 } from '../../auth/secrets.ts';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

/**
 * What is wrong with a redirect URI an operator registers, or undefined: it must be an absolute
 * http(s) URL without a fragment or credentials (RFC 6749 §3.1.2). A browser is sent there with
 * an authorization code, so `javascript:`, `data:` and the like are never accepted. Self-service
 * registration (oauth/register.ts) is stricter still: https, or http on loopback only.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > 2000 || !URL.canParse(uri)) return `"${uri.slice(0, 100)}" is not an absolute URL`;
  const url = new URL(uri);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `"${uri}" is not an http(s) URL`;
  if (url.hash || uri.includes('#')) return `"${uri}" has a fragment`;
  if (url.username || url.password) return `"${uri}" carries credentials`;
  return undefined;
}

const RedirectUri = z.string().superRefine((uri, ctx) => {
  const problem = redirectUriProblem(uri);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

export const ClientInput = z.strictObject({
  client_id: z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/, 'client ids use letters, digits and . _ ~ -'),
  name: z.string().min(1).max(200),
  redirect_uris: z.array(RedirectUri).max(20).default([]),
  kind: z.enum(['public', 'confidential']).default('public'),
  secret: z.string().min(16).optional(),
});

/** Registers (or updates) a client that may ask subjects for grants. */
export async function registerClient(
  deps: Deps,
  input: z.input<typeof ClientInput>,
): Promise<Result<ClientRecord>> {
  const parsed = ClientInput.safeParse(input);
  if (!parsed.success)
    return fail('invalid_request', `client is not valid: ${parsed.error.issues[0]?.message}`);
  const c = parsed.data;
  if (c.kind === 'confidential' && c.secret === undefined) {
    return fail('invalid_request', 'a confidential client needs a secret of at least 16 characters');
  }
  const record: ClientRecord = {
    client_id: c.client_id,
    name: c.name,
    redirect_uris: c.redirect_uris,
    kind: c.kind,
    ...(c.secret !== undefined ? { secret_hash: sha256(c.secret) } : {}),
    created_at: deps.clock().toISOString(),
    // What the consent page calls verified rests on this (model/client.ts#clientStanding).
    source: 'operator',
  };
  await inTransaction(deps, (tx) => tx.store.putClient(record));
  return ok(record);
}
