import { withoutBidiControls } from './shown-text.ts';

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
 * Open registration (RFC 7591) lets anyone pick any name, so only two kinds of client have their
 * address vouched for: those the operator registered, and metadata documents fetched over https
 * from the very origin (scheme, host and port) the person is sent back to (that site speaks for
 * the redirect). A document served over http (a development flag), or from another origin, even
 * another port or scheme of the same host, vouches for nothing. Whether anyone vouches for the
 * app's *name* is shownApp's to say.
 */
export function clientStanding(client: ClientRecord, redirectUri: string | undefined): ClientStanding {
  if (isOperatorRegistered(client)) return 'operator';
  if (client.source === 'dynamic' || redirectUri === undefined) return 'self_registered';
  if (!URL.canParse(client.client_id) || !URL.canParse(redirectUri)) return 'self_registered';
  const document = new URL(client.client_id);
  // The document is fetched from its client_id URL itself, with no redirects (client-document.ts).
  const sameSite = document.protocol === 'https:' && document.origin === new URL(redirectUri).origin;
  return sameSite ? 'own_site' : 'self_registered';
}

/** Records without `source` were written by the operator before the field existed. */
function isOperatorRegistered(client: ClientRecord): boolean {
  return client.source === undefined || client.source === 'operator';
}

/** An app as a person is shown it, wherever its name appears (issue 22 item 4). */
export interface ShownApp {
  /** Its name as shownClientName makes it. */
  readonly name: string;
  /**
   * Where it lives, shown beside the name of every app the operator did not register: the
   * metadata document's host (with its port), or the host a self-registered app sends people to.
   */
  readonly host?: string;
  /** Someone other than the app vouches for the name: the operator, or an origin it registered. */
  readonly vouched: boolean;
}

/**
 * The origins (scheme, host, port) of the operator's own apps, from their redirect URIs: a
 * metadata document served over https from one of them speaks for the operator's app there.
 */
export function operatorOrigins(clients: readonly ClientRecord[]): Set<string> {
  const origins = new Set<string>();
  for (const client of clients) {
    if (!isOperatorRegistered(client)) continue;
    for (const uri of client.redirect_uris) if (URL.canParse(uri)) origins.add(new URL(uri).origin);
  }
  return origins;
}

/**
 * How an app is named to the person. Anyone can register a name, or serve a metadata document
 * naming itself after a well-known app from their own host, so the name alone is vouched for
 * only when the operator registered the app, or the document's whole origin is one of the
 * operator's; every other app shows its host beside its name.
 */
export function shownApp(client: ClientRecord, origins: ReadonlySet<string>): ShownApp {
  const name = shownClientName(client.name);
  if (isOperatorRegistered(client)) return { name, vouched: true };
  const home = client.source === 'metadata_document' ? client.client_id : client.redirect_uris[0];
  const url = home !== undefined && URL.canParse(home) ? new URL(home) : undefined;
  const vouched =
    client.source === 'metadata_document' && url?.protocol === 'https:' && origins.has(url.origin);
  // URL.host is punycode for an IDN host and keeps a port that is not the scheme's default.
  return { name, ...(url ? { host: url.host } : {}), vouched };
}

/**
 * The app's name in a sentence: plain when vouched for, else in quotes as its own claim; with
 * its host beside it whenever it has one ("“Fragrance Demo App” at evil.example").
 */
export function appWords(app: ShownApp): string {
  const name = app.vouched ? app.name : `“${app.name}”`;
  if (app.host !== undefined) return `${name} at ${app.host}`;
  return app.vouched ? name : `${name} (the name it gave itself)`;
}

/** The app as the subject of a sentence: "An app that calls itself “…” at host" unless vouched. */
export function askingAppWords(app: ShownApp): string {
  if (app.vouched) return appWords(app);
  return `An app that calls itself “${app.name}”${app.host !== undefined ? ` at ${app.host}` : ''}`;
}

/** The longest client name a page shows, in characters; a longer one is cut with "…". */
const SHOWN_NAME_LIMIT = 80;

/**
 * A client's name as the pages show it. Anyone may register a name, so what could make it draw
 * as something else is taken out: bidi overrides and isolates (an RLO reverses the words after
 * it), zero-width and other invisible format characters, control characters and line breaks;
 * runs of spaces become one, and a name longer than SHOWN_NAME_LIMIT is cut (it must not push
 * the "not verified" words off the screen).
 */
export function shownClientName(name: string): string {
  // Bidi controls by their one definition; then every other format and control character.
  const clean = withoutBidiControls(name)
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
  const chars = [...clean];
  if (chars.length === 0) return 'Unnamed app';
  return chars.length > SHOWN_NAME_LIMIT ? `${chars.slice(0, SHOWN_NAME_LIMIT - 1).join('')}…` : clean;
}
