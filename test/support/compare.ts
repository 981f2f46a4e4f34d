// Comparing what two providers answered to the same calls (issue 10: a grantee must not be able
// to tell a hidden claim from an absent one). Two providers differ in what they mint: random ids
// (grants, proposals, reviews, events, new claims) and pairwise ids (an HMAC under each store's own
// secret). Those are numbered by first appearance over the whole run, so the runs compare equal
// only when the same id stands in the same places; every other value, stored claim ids and times
// included, must be equal as it is. `generated_at` is the one member allowed to differ.

const MINTED =
  /^ppx:(claim|proposal|grant|review|event|view):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^ppx:(subject|profile):[A-Za-z0-9_-]{27}$/;

/** Numbers minted ids by first appearance and drops `generated_at`, across every value given. */
export function comparableRun(values: readonly unknown[]): unknown[] {
  const minted = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const m = MINTED.exec(v);
      if (m === null) return v;
      if (!minted.has(v)) minted.set(v, `<${m[1] ?? m[2]} ${minted.size}>`);
      return minted.get(v);
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
