import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import { clientAuthenticated } from '../consent/tokens.ts';
import type { Deps } from '../deps.ts';

/** What the token, revocation and introspection endpoints were given to identify the client. */
export interface ClientCredentials {
  readonly client_id?: string | undefined;
  readonly client_secret?: string | undefined;
}

/**
 * RFC 6749 §2.3 / §3.2.1: a public client identifies itself (PKCE proves the rest); a
 * confidential one must present its secret (Basic or in the body). Every failure is
 * `invalid_client`, whichever part was wrong.
 */
export async function authenticateClient(
  deps: Deps,
  creds: ClientCredentials,
): Promise<Result<ClientRecord>> {
  const refused = fail('invalid_client', 'client authentication failed');
  if (creds.client_id === undefined || creds.client_id === '' || creds.client_id.length > 2000)
    return refused;
  const client = await deps.store.getClient(creds.client_id);
  if (!client) return refused;
  // A public client has no secret (RFC 6749 §2.1): one that sends a secret is not the client it
  // names, or is misconfigured; either way it does not get to use the public client's identity.
  if (client.kind === 'public') {
    return creds.client_secret === undefined || creds.client_secret === ''
      ? ok(client)
      : fail('invalid_client', 'this client is public and has no secret: send none');
  }
  return creds.client_secret !== undefined && secretMatches(client, creds.client_secret)
    ? ok(client)
    : refused;
}

/** Whether a confidential client proved itself (RFC 6749 §2.3.1), for the introspection caller. */
export async function confidentialClient(
  deps: Deps,
  creds: ClientCredentials,
): Promise<Result<ClientRecord>> {
  const client = await authenticateClient(deps, creds);
  if (client.ok && client.value.kind !== 'confidential') {
    return fail('invalid_client', 'only a confidential client may introspect tokens');
  }
  return client;
}

/** store.ts: `secret_hash` is the base64url SHA-256 of the secret; consent/tokens.ts compares it. */
function secretMatches(client: ClientRecord, secret: string): boolean {
  return secret.length <= 500 && clientAuthenticated(client, secret);
}
