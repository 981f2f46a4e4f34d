import { childId, grantIdOfChild } from '../../operations/child-ids.ts';
import { mintPackage } from '../../operations/consent/package-tokens.ts';
import { fatal } from '../args.ts';
import { extraArguments, mintKind, print } from './contract.ts';
import { audienceOf, forProblem, RESOURCE_OPTIONS } from './resource.ts';

export const MINT_PACKAGE = mintKind({
  name: 'package',
  help: `ppx mint package --grant ID --grant ID … [--for api|mcp | --resource URL] [--json]
  Prints a grant-package token over existing active grants of one grantee and subject
  (WIRE-NOTES §4), for the HTTP API unless --for mcp (or --resource BASE/mcp).`,
  options: {
    grant: { type: 'string', multiple: true },
    ...RESOURCE_OPTIONS,
    json: { type: 'boolean' },
  },
  prepare(v, positionals) {
    // A grant is named by its PPX grant id or its child id (child-ids.ts).
    const named = v.grant ?? [];
    const problem =
      extraArguments(positionals) ??
      forProblem(v.for) ??
      // The A2A agent acts under the one grant a token names (docs/a2a.md).
      (v.for === 'a2a'
        ? 'the A2A agent takes tokens for one grant: use ppx mint grant --for a2a'
        : undefined) ??
      (named.length === 0 ? 'name the grants of the package: --grant ID --grant ID …' : undefined);
    if (problem !== undefined) return problem;
    return async (deps) => {
      const audience = audienceOf(deps.provider, v);
      if (!audience.ok) return audience.problem;
      // Without --for/--resource the family records no resource, as before: the HTTP API.
      const chosen = v.for === undefined && v.resource === undefined ? undefined : audience.url;
      const pkg = await mintPackage(
        deps,
        named.map((id) => grantIdOfChild(id) ?? id),
        chosen,
      );
      if (!pkg.ok) return fatal('mint package', pkg.error.description);
      print(v.json, {
        package_id: pkg.value.package_id,
        // The children as the MCP tools take them (`grant_id`): child ids.
        grant_ids: (pkg.value.grant_ids ?? []).map(childId).join(','),
        access_token: pkg.value.access_token,
        ...(pkg.value.refresh_token !== undefined ? { refresh_token: pkg.value.refresh_token } : {}),
        expires_in: pkg.value.expires_in,
      });
      return 0;
    };
  },
});
