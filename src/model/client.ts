// An app (OAuth client) known to the provider.

export interface ClientRecord {
  readonly client_id: string;
  readonly name: string;
  readonly redirect_uris: readonly string[];
  readonly kind: 'public' | 'confidential';
  /** SHA-256 (base64url) of the client secret, for confidential clients. */
  readonly secret_hash?: string;
  readonly created_at: string;
  /**
   * How the client came to be known: by the operator (`ppx client add`, the demo seed), RFC 7591
   * registration, or a metadata document. Absent on operator records written before the field
   * was set for them: registration and metadata documents have always recorded theirs.
   */
  readonly source?: 'operator' | 'dynamic' | 'metadata_document';
  /** The client metadata as registered (RFC 7591 §2), for clients that registered themselves. */
  readonly metadata?: Record<string, unknown>;
}

/**
 * Who vouches for a client's name and for the address a person is sent back to, as the consent
 * page tells them: the operator, the client's own site, or nobody (it registered itself).
 */
export type ClientStanding = 'operator' | 'own_site' | 'self_registered';

/**
 * Open registration (RFC 7591) lets anyone pick any name, so only two kinds of client are vouched
 * for: those the operator registered, and metadata documents fetched over https from the very
 * host the person is sent back to (that site speaks for the redirect). A document served over
 * http (a development flag) or from another host vouches for nothing.
 */
export function clientStanding(client: ClientRecord, redirectUri: string | undefined): ClientStanding {
  if (client.source === undefined || client.source === 'operator') return 'operator';
  if (client.source === 'dynamic' || redirectUri === undefined) return 'self_registered';
  if (!URL.canParse(client.client_id) || !URL.canParse(redirectUri)) return 'self_registered';
  const document = new URL(client.client_id);
  const redirect = new URL(redirectUri);
  // The document is fetched from its client_id URL itself, with no redirects (client-document.ts).
  const sameSite = document.protocol === 'https:' && document.hostname === redirect.hostname;
  return sameSite ? 'own_site' : 'self_registered';
}

/** The longest client name a page shows, in characters; a longer one is cut with "…". */
export const SHOWN_NAME_LIMIT = 80;

/**
 * A client's name as the pages show it. Anyone may register a name, so what could make it draw
 * as something else is taken out: bidi overrides and isolates (an RLO reverses the words after
 * it), zero-width and other invisible format characters, control characters and line breaks;
 * runs of spaces become one, and a name longer than SHOWN_NAME_LIMIT is cut (it must not push
 * the "not verified" words off the screen).
 */
export function shownClientName(name: string): string {
  const clean = name
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
  const chars = [...clean];
  if (chars.length === 0) return 'Unnamed app';
  return chars.length > SHOWN_NAME_LIMIT ? `${chars.slice(0, SHOWN_NAME_LIMIT - 1).join('')}…` : clean;
}
