import { createHash } from 'node:crypto';
import { CompactSign } from 'jose';
import { randomToken } from '../../auth/secrets.ts';
import { appWords, shownClientName } from '../../model/client.ts';
import {
  type ConsentReceiptClaims,
  type ConsentReceiptRecord,
  RECEIPT_TYP,
  RECEIPT_VERSION,
  type ReceiptDecision,
} from '../../model/consent-receipt.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import type { GrantRequestDraft, GrantRequestRecord } from '../../model/grant-request.ts';
import type { FamilyEndReason } from '../../model/token-family.ts';
import { shownApps } from '../accounts/shown-apps.ts';
import type { TxDeps } from '../deps.ts';

// Signed consent receipts (docs/receipts.md): every decision about a grant — approved, narrowed,
// rejected, revoked, expired — is signed with the provider's token key (published in its JWKS)
// and stored, inside the transaction that makes the decision, so a decision without its receipt
// never commits. The receipt names the person by the pairwise id the app knows them by, and holds
// nothing the grant does not already tell the app: the grant's terms, the app's name as shown,
// and a hash of what the person was shown (never a claim value).

/** What the person saw on the consent page, before deciding: hashed into `notice.hash`. */
export interface ShownRequest {
  readonly app: { readonly client_id: string; readonly name: string };
  /** The request as the app asked for it. */
  readonly asked: GrantRequestDraft;
  /** For an element of a grant package: its detail id. */
  readonly detail_id?: string;
}

/** Why a grant was revoked (revocation.ts), as the receipt tells who ended it. */
function revokedBy(reason: FamilyEndReason | undefined): 'person' | 'app' | 'provider' {
  if (reason === undefined) return 'person';
  return reason === 'client_revoked' ? 'app' : 'provider';
}

/** The receipt of an approval (`narrowed` when the person changed anything the app asked for). */
export function receiptOfApproval(
  tx: TxDeps,
  request: GrantRequestRecord,
  grant: GrantRecord,
  now: Date,
): Promise<ConsentReceiptRecord> {
  const decision = sameTerms(request.draft, grant) ? 'approved' : 'narrowed';
  return issue(tx, {
    decision,
    subjectId: request.subject_id,
    clientId: request.client_id,
    now,
    grant,
    request,
  });
}

/** The receipt of a refused request: what was asked, and that it was refused. */
export function receiptOfRejection(
  tx: TxDeps,
  request: GrantRequestRecord,
  now: Date,
): Promise<ConsentReceiptRecord> {
  return issue(tx, {
    decision: 'rejected',
    subjectId: request.subject_id,
    clientId: request.client_id,
    now,
    request,
  });
}

/** The receipt of a grant's end: revoked (by whom), or expired (at its expiry). */
export async function receiptOfEnd(
  tx: TxDeps,
  grant: GrantRecord,
  now: Date,
  end:
    | { readonly decision: 'revoked'; readonly reason?: FamilyEndReason | undefined }
    | { readonly decision: 'expired' },
): Promise<ConsentReceiptRecord> {
  // The notice the grant was approved on, carried over from its approval's receipt.
  const approval = await tx.store.findConsentReceipt(grant.grant_id, ['approved', 'narrowed']);
  const notice = approval ? readClaims(approval.jws)?.notice : undefined;
  return issue(tx, {
    decision: end.decision,
    subjectId: grant.subject_id,
    clientId: grant.grantee_id,
    now,
    grant,
    ...(end.decision === 'revoked' ? { revokedBy: revokedBy(end.reason) } : {}),
    ...(notice !== undefined ? { notice } : {}),
  });
}

interface Issue {
  readonly decision: ReceiptDecision;
  readonly subjectId: string;
  readonly clientId: string;
  readonly now: Date;
  readonly grant?: GrantRecord;
  readonly request?: GrantRequestRecord;
  readonly revokedBy?: 'person' | 'app' | 'provider';
  readonly notice?: ConsentReceiptClaims['notice'];
}

async function issue(tx: TxDeps, what: Issue): Promise<ConsentReceiptRecord> {
  const { grant, request, now } = what;
  const shown = (await shownApps(tx, [what.clientId])).get(what.clientId);
  const app = { client_id: what.clientId, name: shown ? appWords(shown) : shownClientName(what.clientId) };
  const terms = grant ?? termsOf(request!.draft);
  const receiptId = `rcpt_${randomToken(16)}`;
  const decidedAt =
    what.decision === 'expired' && grant?.expires_at !== undefined ? grant.expires_at : now.toISOString();
  const notice =
    what.notice ??
    (request
      ? {
          alg: 'sha-256' as const,
          hash: noticeHash({
            app,
            asked: request.draft,
            ...(request.package ? { detail_id: request.package.detail_id } : {}),
          }),
        }
      : undefined);
  const base = tx.provider.baseUrl;
  const claims: ConsentReceiptClaims = {
    jti: receiptId,
    version: RECEIPT_VERSION,
    iss: base,
    iat: Math.floor(now.getTime() / 1000),
    controller: { name: tx.provider.name, url: base, provider_id: tx.provider.providerId },
    sub: tx.pairwise.subject(what.subjectId, what.clientId),
    aud: what.clientId,
    app,
    decision: what.decision,
    decided_at: decidedAt,
    ...(what.revokedBy !== undefined ? { revoked_by: what.revokedBy } : {}),
    ...(grant ? { grant_id: grant.grant_id } : {}),
    ...(request ? { grant_request_id: request.grant_request_id } : {}),
    purposes: [...terms.purposes],
    data: {
      namespaces: [...terms.allowed_namespaces],
      ...(terms.allowed_claim_keys ? { claim_keys: [...terms.allowed_claim_keys] } : {}),
      domains: [...terms.allowed_domains],
      operations: [...terms.allowed_operations] as ConsentReceiptClaims['data']['operations'],
    },
    cross_domain_transfer: terms.cross_domain_transfer as ConsentReceiptClaims['cross_domain_transfer'],
    writeback_policy: terms.writeback_policy as ConsentReceiptClaims['writeback_policy'],
    access_mode: terms.access_mode,
    ...(grant ? { valid_from: grant.granted_at } : {}),
    ...(terms.expires_at !== undefined ? { expires_at: terms.expires_at } : {}),
    ...(notice !== undefined ? { notice } : {}),
  };
  const signer = tx.tokens.documentSigner;
  const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: RECEIPT_TYP })
    .sign(signer.privateKey);
  const record: ConsentReceiptRecord = {
    receipt_id: receiptId,
    subject_id: what.subjectId,
    client_id: what.clientId,
    ...(grant ? { grant_id: grant.grant_id } : {}),
    decision: what.decision,
    issued_at: now.toISOString(),
    jws,
  };
  await tx.store.insertConsentReceipt(record);
  return record;
}

/** A draft's terms in a grant's field names. */
function termsOf(d: GrantRequestDraft) {
  return { ...d, expires_at: d.expires_at as string | undefined };
}

/** Whether the grant has exactly the terms the app asked for. */
function sameTerms(asked: GrantRequestDraft, grant: GrantRecord): boolean {
  const same = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
    canonicalJson([...(a ?? [])].sort()) === canonicalJson([...(b ?? [])].sort()) &&
    (a === undefined) === (b === undefined);
  return (
    same(asked.purposes, grant.purposes) &&
    same(asked.allowed_domains, grant.allowed_domains) &&
    same(asked.allowed_namespaces, grant.allowed_namespaces) &&
    same(asked.allowed_claim_keys, grant.allowed_claim_keys) &&
    same(asked.allowed_operations, grant.allowed_operations) &&
    asked.cross_domain_transfer === grant.cross_domain_transfer &&
    asked.writeback_policy === grant.writeback_policy &&
    Date.parse(asked.expires_at) === Date.parse(grant.expires_at ?? '')
  );
}

/** SHA-256, base64url, of the canonical JSON of what the person was shown. */
export function noticeHash(shown: ShownRequest): string {
  return createHash('sha256').update(canonicalJson(shown)).digest('base64url');
}

/**
 * JSON with object members sorted by name and no whitespace (RFC 8785's shape for the strings,
 * arrays and objects a consent request holds; it has no fractional numbers).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The claims of a stored receipt's JWS (signed by this provider: read, not verified). */
export function readClaims(jws: string): ConsentReceiptClaims | undefined {
  try {
    return JSON.parse(
      Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as ConsentReceiptClaims;
  } catch {
    return undefined;
  }
}
