import assert from 'node:assert/strict';

// Other spellings of one base64url segment: its last character also carries padding bits (the
// low 2 or 4 bits of a segment whose byte length is not a multiple of 3), which a lenient decoder
// ignores. Every spelling decodes to the same bytes; only the first (canonical) one re-encodes to
// itself.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The segment itself first, then each other spelling of it (none when it has no padding bits). */
export function segmentSpellings(segment: string): string[] {
  const paddingBits = { 0: 0, 2: 4, 3: 2 }[(segment.length % 4) as 0 | 2 | 3];
  assert.ok(paddingBits !== undefined, `a base64url segment cannot be ${segment.length} characters long`);
  const last = ALPHABET.indexOf(segment.at(-1)!);
  const high = last & ~((1 << paddingBits) - 1);
  const out = [segment];
  for (let low = 0; low < 1 << paddingBits; low++) {
    const spelled = segment.slice(0, -1) + ALPHABET[high | low];
    if (spelled !== segment) out.push(spelled);
  }
  const bytes = Buffer.from(segment, 'base64url');
  for (const s of out) assert.deepEqual(Buffer.from(s, 'base64url'), bytes, 'every spelling decodes alike');
  return out;
}

/** A JWT's spellings that vary the signature's last character: the token itself first. */
export function signatureSpellings(token: string): string[] {
  const [header, payload, signature] = token.split('.');
  return segmentSpellings(signature!).map((s) => `${header}.${payload}.${s}`);
}
