import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { ClientRecord } from '../../model/client.ts';
import { fail, ok, type Result } from '../../model/errors.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25):
// a client_id that is an https URL names a JSON document describing the client. Fetching a URL
// a stranger chose is an SSRF risk, so every guard below is on by default (docs/oauth.md).

const TIMEOUT_MS = 5_000;
const MAX_BYTES = 64 * 1024;
/** A cached document is used this long before it is fetched again. */
const CACHE_SECONDS = 3600;

export interface DocumentOptions {
  /** `--dev-allow-http-client-metadata`: http URLs and private addresses are allowed. */
  readonly allowDev: boolean;
}

/** Whether a client_id is meant as a metadata document URL (else it is a registered id). */
export function isDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * The client a document URL names: from the cache while fresh, else fetched, checked and cached
 * as a ClientRecord with source `metadata_document`. Failures are `invalid_client`.
 */
export async function documentClient(
  deps: Deps,
  clientId: string,
  options: DocumentOptions,
): Promise<Result<ClientRecord>> {
  const cached = await deps.store.getClient(clientId);
  const now = deps.clock();
  if (cached?.source === 'metadata_document') {
    if (Date.parse(cached.created_at) + CACHE_SECONDS * 1000 > now.getTime()) return ok(cached);
  } else if (cached) {
    return ok(cached);
  }
  const url = checkUrl(clientId, options);
  if (!url.ok) return url;
  const fetched = await fetchDocument(url.value, options).catch((e: unknown) =>
    refuse(`the client metadata document could not be fetched (${e instanceof Error ? e.message : e})`),
  );
  if (!fetched.ok) return fetched;
  const record = recordOf(clientId, fetched.value, now);
  if (!record.ok) return record;
  await inTransaction(deps, (tx) => tx.store.putClient(record.value));
  return record;
}

function refuse(why: string) {
  return fail('invalid_client', why);
}

function checkUrl(clientId: string, options: DocumentOptions): Result<URL> {
  if (!URL.canParse(clientId) || clientId.length > 2000) return refuse('client_id is not a valid URL');
  const url = new URL(clientId);
  const httpAllowed = options.allowDev && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) return refuse('a client_id URL must use https');
  if (url.username || url.password || url.hash)
    return refuse('a client_id URL has no credentials or fragment');
  if (url.pathname === '/') return refuse('a client_id URL must have a path');
  // The document must be named by its exact URL: a normalized form would be another client.
  if (url.href !== clientId) return refuse('client_id must be a normalized URL');
  return ok(url);
}

/**
 * GET with the guards: the host is resolved once, every address checked, and the connection
 * pinned to a checked address (no second lookup an attacker could rebind). No redirects (a 3xx
 * is a failure), a 5 s deadline for the whole exchange, and at most 64 KiB of body.
 */
async function fetchDocument(url: URL, options: DocumentOptions): Promise<Result<unknown>> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  if (addresses.length === 0) return refuse('the client_id host does not resolve');
  if (!options.allowDev) {
    const blocked = addresses.find((a) => isPrivate(a.address));
    if (blocked) return refuse('the client_id host resolves to a private, loopback or link-local address');
  }
  const pinned = addresses[0]!;
  const body = await new Promise<string>((resolve, reject) => {
    const get = url.protocol === 'https:' ? https.get : http.get;
    const req = get(
      url,
      {
        signal,
        headers: { accept: 'application/json' },
        lookup: (_h, opts, cb) => {
          // Node asks for all addresses when autoSelectFamily is on; answer in the shape asked.
          if ((opts as { all?: boolean }).all) cb(null, [pinned]);
          else (cb as (e: null, a: string, f: number) => void)(null, pinned.address, pinned.family);
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`status ${res.statusCode}; redirects are not followed`));
          return;
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > MAX_BYTES) {
          req.destroy(new Error('the document is larger than 64 KiB'));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) req.destroy(new Error('the document is larger than 64 KiB'));
          else chunks.push(chunk);
        });
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
  try {
    return ok(JSON.parse(body));
  } catch {
    return refuse('the client metadata document is not JSON');
  }
}

function recordOf(clientId: string, doc: unknown, now: Date): Result<ClientRecord> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return refuse('the client metadata document is not a JSON object');
  }
  const d = doc as Record<string, unknown>;
  if (d['client_id'] !== clientId)
    return refuse("the document's client_id is not the URL it was fetched from");
  const uris = d['redirect_uris'];
  if (
    !Array.isArray(uris) ||
    uris.length === 0 ||
    !uris.every((u) => typeof u === 'string' && URL.canParse(u))
  ) {
    return refuse('the client metadata document must list redirect_uris');
  }
  // A document cannot carry a shared secret: such a client is public and proves itself by PKCE.
  const method = d['token_endpoint_auth_method'];
  if (method !== undefined && method !== 'none') {
    return refuse('a metadata document client must use token_endpoint_auth_method "none"');
  }
  const name = typeof d['client_name'] === 'string' ? d['client_name'].slice(0, 200) : new URL(clientId).host;
  return ok({
    client_id: clientId,
    name,
    redirect_uris: uris as string[],
    kind: 'public',
    created_at: now.toISOString(),
    source: 'metadata_document',
    metadata: d,
  });
}

/** Addresses a document fetch must never reach (RFC 6890 special-purpose, RFC 4193, RFC 4291). */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // ::/96 holds :: and ::1 and the deprecated IPv4-compatible addresses (::a.b.c.d, RFC 4291
  // §2.5.5.1): whatever a host stack makes of ::7f00:1, it is never a public client's address.
  ['::', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

export function isPrivate(address: string): boolean {
  // IPv4-mapped IPv6 (RFC 4291 §2.5.5.2) is checked as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [hi, lo] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
    return PRIVATE.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return isIP(address) === 6 ? PRIVATE.check(address, 'ipv6') : PRIVATE.check(address, 'ipv4');
}
