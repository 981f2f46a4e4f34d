import { confirmUpdatesTool } from './confirm-updates.ts';
import type { AnyTool } from './contract.ts';
import { exportProfileTool } from './export-profile.ts';
import { getEffectiveProfileTool } from './get-effective-profile.ts';
import { getProfileSummaryTool } from './get-profile-summary.ts';
import { listConsentGrantsTool } from './list-consent-grants.ts';
import { listGrantedAccessTool } from './list-granted-access.ts';
import { proposeUpdatesTool } from './propose-updates.ts';
import { queryClaimsTool } from './query-claims.ts';
import { revokeConsentGrantTool } from './revoke-consent-grant.ts';

/** Every MCP tool (bindings/mcp.md "Tool mapping"); adding a tool is adding a file and a line. */
export const TOOLS: readonly AnyTool[] = [
  listGrantedAccessTool,
  getProfileSummaryTool,
  queryClaimsTool,
  getEffectiveProfileTool,
  proposeUpdatesTool,
  confirmUpdatesTool,
  listConsentGrantsTool,
  revokeConsentGrantTool,
  exportProfileTool,
];

export const TOOLS_BY_NAME: ReadonlyMap<string, AnyTool> = new Map(TOOLS.map((t) => [t.name, t]));
