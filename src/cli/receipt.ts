import { readFile } from 'node:fs/promises';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, errors, type JSONWebKeySet } from 'jose';
import { ConsentReceiptClaims, RECEIPT_TYP } from '../model/consent-receipt.ts';
import { receiptSentence } from '../surfaces/shared/receipt-words.ts';
import { fatal, parse, usage } from './args.ts';

export const RECEIPT_HELP = `ppx receipt verify FILE [--jwks FILE|URL]
                                         checks a signed consent receipt (a .jwt file) against the
                                         provider's published keys: a JWKS file, or URL (default:
                                         the issuer's /.well-known/jwks.json); prints it in words`;

const OPTIONS = { jwks: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

/** `ppx receipt verify FILE [--jwks …]`: 0 when genuine, 1 when not (said why), 2 for bad usage. */
export async function receiptCommand(argv: string[]): Promise<number> {
  const args = parse(argv, OPTIONS);
  if (!args.ok) return usage('receipt', RECEIPT_HELP, args.message);
  const { values: v, positionals } = args.value;
  if (v.help) return usage('receipt', RECEIPT_HELP);
  const [verb, file, ...extra] = positionals;
  if (verb !== 'verify') {
    return usage(
      'receipt',
      RECEIPT_HELP,
      verb === undefined ? 'say what to do: verify FILE' : `unknown subcommand "${verb}"`,
    );
  }
  if (file === undefined || extra.length > 0) return usage('receipt', RECEIPT_HELP, 'name one receipt file');
  let jws: string;
  try {
    jws = (await readFile(file, 'utf8')).trim();
  } catch {
    return fatal('receipt', `cannot read ${file}`);
  }
  const checked = await verifyReceipt(jws, v.jwks);
  if (typeof checked === 'string') return fatal('receipt', checked);
  console.log(
    `Genuine: signed by ${checked.claims.controller.name} (${checked.claims.iss}), key ${checked.kid}`,
  );
  console.log(`checked against ${checked.keysFrom}`);
  console.log('');
  for (const line of receiptLines(checked.claims)) console.log(line);
  return 0;
}

interface Checked {
  readonly claims: ConsentReceiptClaims;
  readonly kid: string;
  readonly keysFrom: string;
}

/** The receipt's claims when its signature holds under the keys, else why not, in words. */
async function verifyReceipt(jws: string, jwksAt: string | undefined): Promise<Checked | string> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: unknown;
  try {
    header = decodeProtectedHeader(jws);
    unverified = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    return 'this is not a consent receipt: not a compact JWS';
  }
  if (jws.split('.').length !== 3) return 'this is not a consent receipt: not a compact JWS';
  if (header.typ !== RECEIPT_TYP)
    return `this is not a consent receipt: its type is ${header.typ ?? 'missing'}, not ${RECEIPT_TYP}`;
  const iss = (unverified as { iss?: unknown } | null)?.iss;
  const from =
    jwksAt ?? (typeof iss === 'string' ? `${iss.replace(/\/+$/, '')}/.well-known/jwks.json` : undefined);
  if (from === undefined) return 'the receipt names no issuer; give the keys with --jwks FILE';
  const keys = await loadKeys(from);
  if (typeof keys === 'string') return keys;
  try {
    const { payload } = await compactVerify(jws, createLocalJWKSet(keys), { algorithms: ['EdDSA', 'ES256'] });
    const claims = ConsentReceiptClaims.safeParse(JSON.parse(new TextDecoder().decode(payload)));
    if (!claims.success) return 'the signature holds, but this is not a consent receipt of this format';
    return { claims: claims.data, kid: header.kid ?? '(none)', keysFrom: from };
  } catch (e) {
    if (e instanceof errors.JWSSignatureVerificationFailed) {
      return 'the signature does not match: the receipt was changed after it was signed, or signed with another key';
    }
    if (e instanceof errors.JWKSNoMatchingKey) return `none of the keys in ${from} signed this receipt`;
    return 'the receipt could not be checked: it is malformed';
  }
}

async function loadKeys(from: string): Promise<JSONWebKeySet | string> {
  let text: string;
  try {
    if (/^https?:\/\//.test(from)) {
      const res = await fetch(from, { headers: { accept: 'application/jwk-set+json, application/json' } });
      if (!res.ok) return `the keys at ${from} could not be read (HTTP ${res.status})`;
      text = await res.text();
    } else {
      text = await readFile(from, 'utf8');
    }
  } catch {
    return `the keys at ${from} could not be read`;
  }
  try {
    const set = JSON.parse(text) as JSONWebKeySet;
    if (!Array.isArray(set.keys)) throw new Error('no keys');
    return set;
  } catch {
    return `${from} is not a JSON Web Key Set`;
  }
}

function receiptLines(c: ConsentReceiptClaims): string[] {
  const areas = c.data.namespaces.join(', ');
  return [
    receiptSentence(c, 'the person'),
    `receipt      ${c.jti} (${c.version})`,
    `decision     ${c.decision}${c.revoked_by !== undefined ? ` by the ${c.revoked_by}` : ''} at ${c.decided_at}`,
    `app          ${c.app.name} (${c.app.client_id})`,
    `person       ${c.sub}`,
    `purposes     ${c.purposes.join(', ')}`,
    `data         ${areas}${c.data.claim_keys ? ` (${c.data.claim_keys.join(', ')})` : ''}; domains ${c.data.domains.join(', ')}`,
    `may          ${c.data.operations.join(', ')}; write-back ${c.writeback_policy}; cross-domain ${c.cross_domain_transfer}`,
    `ends         ${c.expires_at ?? 'when revoked'}`,
    ...(c.grant_id !== undefined ? [`grant        ${c.grant_id}`] : []),
    ...(c.notice ? [`shown        sha-256 ${c.notice.hash}`] : []),
  ];
}
