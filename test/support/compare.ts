// Comparing what two providers answered to the same calls (issue 10: a grantee must not be able
// to tell a hidden claim from an absent one). Two providers differ in what they mint: random ids
// (grants, proposals, reviews, events, new claims) and pairwise ids (an HMAC under each store's own
// secret). Those are numbered by first appearance over the whole run, wherever they stand (a whole
// string, or inside one, URL-encoded in a resource URI say), so the runs compare equal only when
// the same id stands in the same places; every other value, stored claim ids and times included,
// must be equal as it is. `generated_at` is the one member allowed to differ.

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/**
 * A random id, with its `ppx:<kind>:` prefix or bare (a package child id), a pairwise id, or a
 * grant package's id (`pkg_` and 16 random bytes in base64url).
 */
const MINTED = new RegExp(
  `(ppx(?::|%3A)[a-z]+(?::|%3A))?(${UUID})|ppx(?::|%3A)(?:subject|profile)(?::|%3A)[A-Za-z0-9_-]{27}(?![A-Za-z0-9_-])|pkg_[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])`,
  'g',
);

/** Numbers minted ids by first appearance and drops `generated_at`, across every value given. */
export function comparableRun(values: readonly unknown[]): unknown[] {
  const minted = new Map<string, string>();
  // A random id is known by its UUID, so `ppx:grant:<uuid>` and the bare child id `<uuid>` agree.
  const name = (id: string, prefix?: string, uuid?: string): string => {
    const key = uuid ?? id.replaceAll('%3A', ':');
    if (!minted.has(key)) minted.set(key, `<id ${minted.size}>`);
    return uuid === undefined ? (minted.get(key) as string) : `${prefix ?? ''}${minted.get(key)}`;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(MINTED, (id: string, prefix?: string, uuid?: string) => name(id, prefix, uuid));
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== 'generated_at')
          .map(([k, x]) => [k, walk(x)]),
      );
    }
    return v;
  };
  return values.map(walk);
}
