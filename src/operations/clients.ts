import { z } from 'zod';
import { sha256 } from '../auth/secrets.ts';
import { fail, ok, type Result } from '../model/errors.ts';
import type { ClientRecord } from '../store/store.ts';
import type { Deps } from './deps.ts';

export const ClientInput = z.strictObject({
  client_id: z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/, 'client ids use letters, digits and . _ ~ -'),
  name: z.string().min(1).max(200),
  redirect_uris: z.array(z.url()).default([]),
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
  };
  await deps.store.putClient(record);
  return ok(record);
}
