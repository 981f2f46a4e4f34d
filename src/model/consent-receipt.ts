import { z } from 'zod';
import { CrossDomainTransfer, DateTime, Operation, WritebackPolicy } from './vocabulary.ts';

// A signed consent receipt (issue 26, docs/receipts.md): the claims of the compact JWS the provider
// signs for every decision about a grant. The field names are JWT's where JWT has one (iss, sub,
// aud, iat, jti) and otherwise follow ISO/IEC TS 27560 and the Kantara Consent Receipt v1.1; the
// table mapping each to its counterpart is in docs/receipts.md. schemas/consent-receipt.schema.json
// is generated from this one definition (test/unit/operations/consent-receipts.test.ts keeps them equal).

/** The `typ` of a receipt's JWS header (RFC 8725 §3.11: explicit typing). */
export const RECEIPT_TYP = 'consent-receipt+jwt';

/** This format's version, in the receipt as `version`. */
export const RECEIPT_VERSION = 'ppx-cr-1';

/** What happened to the grant. */
export const ReceiptDecision = z.enum(['approved', 'narrowed', 'rejected', 'revoked', 'expired']);
export type ReceiptDecision = z.infer<typeof ReceiptDecision>;

/** Who ended a revoked grant: the person, the app itself, or the provider (a replayed token). */
const RevokedBy = z.enum(['person', 'app', 'provider']);

export const ConsentReceiptClaims = z
  .strictObject({
    jti: z.string().min(1).describe('The receipt id (Kantara consentReceiptID; ISO 27560 record id).'),
    version: z.literal(RECEIPT_VERSION).describe('The receipt format (Kantara version).'),
    iss: z.string().min(1).describe('The provider that signed the receipt: its base URL.'),
    iat: z
      .int()
      .min(0)
      .describe('When the receipt was signed, seconds since the epoch (Kantara consentTimestamp).'),
    controller: z
      .strictObject({
        name: z.string().min(1),
        url: z.string().min(1),
        provider_id: z.string().min(1),
      })
      .describe('Who holds the data and records the consent (Kantara piiControllers; ISO 27560 controller).'),
    sub: z
      .string()
      .min(1)
      .describe('The person, under the pairwise id the app knows them by (Kantara piiPrincipalId).'),
    aud: z.string().min(1).describe('The app the decision is about: its client id.'),
    app: z
      .strictObject({ client_id: z.string().min(1), name: z.string().min(1) })
      .describe('The app, as the person was shown it (ISO 27560 recipient; Kantara thirdParty).'),
    decision: ReceiptDecision.describe('What happened (ISO 27560 consent status and event).'),
    decided_at: DateTime.describe('When it happened (ISO 27560 event time).'),
    revoked_by: RevokedBy.optional().describe('For a revoked grant: who ended it.'),
    grant_id: z.string().min(1).optional().describe('The grant; absent for a refused request.'),
    grant_request_id: z
      .string()
      .min(1)
      .optional()
      .describe('The consent request decided, when there was one.'),
    purposes: z
      .array(z.string().min(1))
      .describe('What the data may be used for (Kantara purpose; ISO 27560 purpose).'),
    data: z
      .strictObject({
        namespaces: z.array(z.string().min(1)),
        claim_keys: z.array(z.string().min(1)).optional(),
        domains: z.array(z.string().min(1)),
        operations: z.array(Operation),
      })
      .describe(
        'Which data, and what the app may do with it (Kantara piiCategory; ISO 27560 PII categories and processing).',
      ),
    cross_domain_transfer: CrossDomainTransfer,
    writeback_policy: WritebackPolicy.describe('Whether and how the app may write back.'),
    access_mode: z.enum(['continuous', 'single_use']),
    valid_from: DateTime.optional().describe('When the grant began.'),
    expires_at: DateTime.optional().describe(
      'When the grant ends (Kantara termination; ISO 27560 duration); absent: until revoked.',
    ),
    notice: z
      .strictObject({
        alg: z.literal('sha-256'),
        hash: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
      })
      .optional()
      .describe(
        'The SHA-256 (base64url) of what the person was shown (ISO 27560 notice); absent for a grant made without a consent request.',
      ),
  })
  .meta({
    $id: 'https://ppx.dev/schemas/provider/consent-receipt.schema.json',
    title: 'PPX signed consent receipt (JWS payload)',
  });
export type ConsentReceiptClaims = z.infer<typeof ConsentReceiptClaims>;

/** A receipt as stored: the signed JWS and what the person's list is looked up by. */
export interface ConsentReceiptRecord {
  readonly receipt_id: string;
  /** The internal subject id (never in the JWS, which names the pairwise id). */
  readonly subject_id: string;
  readonly client_id: string;
  readonly grant_id?: string;
  readonly decision: ReceiptDecision;
  readonly issued_at: string;
  /** The compact JWS (RFC 7515 §7.1). */
  readonly jws: string;
}
