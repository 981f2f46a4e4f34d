// How a grant is named where the PDPP read profile applies (WIRE-NOTES §4): a package child's
// `grant_id` has the grammar `[A-Za-z0-9._~-]+`. A PPX grant id is `ppx:grant:` followed by
// exactly that grammar (the official consent-grant schema requires the prefix), so the child id
// is the PPX grant id without its prefix, and back: one grant, one id, two spellings. PDPP-facing
// outputs (token responses' `pdpp_detail_outcomes`, introspection, the MCP tools' labels, errors
// and discovery) use the child id; PPX objects (consent grants, the `grant` echo) keep the PPX id.

const PREFIX = 'ppx:grant:';
const CHILD_ID = /^[A-Za-z0-9._~-]+$/;

/** The child id of a PPX grant id. */
export function childId(grantId: string): string {
  return grantId.startsWith(PREFIX) ? grantId.slice(PREFIX.length) : grantId;
}

/**
 * The PPX grant id a `grant_id` argument names, or undefined when it is malformed: a child id
 * (`[A-Za-z0-9._~-]+`), or the PPX grant id itself, which is accepted as the same name.
 */
export function grantIdOfChild(value: string): string | undefined {
  const child = value.startsWith(PREFIX) ? value.slice(PREFIX.length) : value;
  return CHILD_ID.test(child) ? `${PREFIX}${child}` : undefined;
}
