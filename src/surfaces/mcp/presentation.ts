import { z } from 'zod';
import { DateTime } from '../../model/vocabulary.ts';

// The MCP presentation of a PPX result that carries claims (PDPP MCP read profile §3, WIRE-NOTES
// §4): reads, and the answers of the write tools. The PPX object stays as the operation returned
// it, claims untouched (the official claim schema allows no extra member); two members are added
// beside it in `structuredContent.data`:
//
// - `claim_instances`: one `{id, instance_id}` per claim id in the result: the entries of
//   `claims`, in their order, then any other claim id a write result names (proposals,
//   decisions). `instance_id` is the pairwise handle of the profile (instance) the claim is in;
// - `freshness`: one `{stream, instance_id, last_success_at}` per namespace of those claims:
//   when the claims of that namespace the grant can see last changed (operations/reads/freshness.ts),
//   truncated to the granularity declared in the protected resource metadata. A change to a claim
//   hidden from the grant never moves a time the grantee sees.
//
// The members are made by an operation (operations/reads/read-profile-presentation.ts); this
// file only describes them in the tools' output schemas.

const ClaimInstance = z.strictObject({ id: z.string(), instance_id: z.string() });
const Freshness = z.strictObject({
  stream: z.string(),
  instance_id: z.string(),
  last_success_at: DateTime,
});

const PRESENTATION = {
  claim_instances: z.array(ClaimInstance).optional(),
  freshness: z.array(Freshness).optional(),
};

/** The output schema of `data` for a tool: its PPX object, plus the presentation members when it carries claims. */
export function presentationSchema(output: z.ZodType): z.ZodType {
  if (output instanceof z.ZodObject && 'claims' in output.shape) return output.extend(PRESENTATION);
  return output;
}
