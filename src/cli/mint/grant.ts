import { unregisteredKeys } from '../../model/extensions/index.ts';
import { MS_PER_DAY } from '../../model/vocabulary.ts';
import { createGrant } from '../../operations/grants/consent-grants.ts';
import { DEMO_SUBJECT } from '../../operations/seed/demo-profile.ts';
import { issueGrantToken } from '../../operations/tokens/issue-tokens.ts';
import { fatal, list } from '../args.ts';
import { extraArguments, mintKind, print, ttlProblem } from './contract.ts';
import { audienceOf, forProblem, RESOURCE_OPTIONS } from './resource.ts';

export const MINT_GRANT = mintKind({
  name: 'grant',
  help: `ppx mint grant --client ID --namespaces a,b [--subject ID] [--keys k1,ns.k2] [--domains d1]
               [--operations read,query] [--purposes recommendation] [--cross-domain deny]
               [--writeback review_required] [--days N] [--single-use] [--ttl SECONDS]
               [--for api|mcp|a2a | --resource URL] [--json]
  Creates an active grant for a registered client and prints a token bound to it. --namespaces
  is required (core is the shared traits); --keys must be registered keys of those namespaces
  (GET /v1/extensions lists them). The token is for the HTTP API unless --for mcp (the MCP
  endpoint BASE/mcp) or --for a2a (the A2A agent, BASE/a2a); --resource URL names a resource by
  its URL. Defaults: the demo subject, domains from the namespaces, read,query, recommendation,
  deny, review_required, 30 days.`,
  options: {
    client: { type: 'string' },
    namespaces: { type: 'string' },
    subject: { type: 'string' },
    keys: { type: 'string' },
    domains: { type: 'string' },
    operations: { type: 'string' },
    purposes: { type: 'string' },
    'cross-domain': { type: 'string' },
    writeback: { type: 'string' },
    days: { type: 'string' },
    'single-use': { type: 'boolean' },
    ttl: { type: 'string' },
    ...RESOURCE_OPTIONS,
    json: { type: 'boolean' },
  },
  prepare(v, positionals) {
    const namespaces = list(v.namespaces) ?? [];
    const keys = list(v.keys);
    const unknownKeys = unregisteredKeys(keys ?? []);
    const days = v.days !== undefined ? Number(v.days) : 30;
    const problem =
      extraArguments(positionals) ??
      (v.client ? undefined : '--client is required for a grant') ??
      // Defaulting to core once made a grant the operator had not asked for.
      (namespaces.length > 0 ? undefined : '--namespaces is required for a grant (e.g. core,fragrance)') ??
      (unknownKeys.length > 0
        ? `--keys names keys no namespace registers: ${unknownKeys.join(', ')} (GET /v1/extensions lists them)`
        : undefined) ??
      (Number.isFinite(days) ? undefined : '--days must be a number') ??
      ttlProblem(v.ttl) ??
      forProblem(v.for);
    if (problem !== undefined) return problem;
    const ttl = v.ttl !== undefined ? Number(v.ttl) : undefined;
    return async (deps) => {
      const audience = audienceOf(deps.provider, v);
      if (!audience.ok) return audience.problem;
      const grant = await createGrant(
        deps,
        {
          subject_id: v.subject ?? DEMO_SUBJECT,
          client_id: v.client!,
          allowed_namespaces: namespaces,
          allowed_domains:
            list(v.domains) ??
            namespaces.filter((n) => n !== 'core').concat(namespaces.length === 1 ? ['core'] : []),
          allowed_operations: (list(v.operations) ?? ['read', 'query']) as never,
          purposes: (list(v.purposes) ?? ['recommendation']) as never,
          ...(keys !== undefined ? { allowed_claim_keys: keys } : {}),
          ...(v['cross-domain'] !== undefined ? { cross_domain_transfer: v['cross-domain'] as never } : {}),
          ...(v.writeback !== undefined ? { writeback_policy: v.writeback as never } : {}),
          expires_at: new Date(deps.clock().getTime() + days * MS_PER_DAY).toISOString(),
          ...(v['single-use'] ? { access_mode: 'single_use' as const } : {}),
        },
        'operator',
      );
      if (!grant.ok) return fatal('mint', grant.error.description);
      const token = await issueGrantToken(deps, grant.value, ttl, audience.url);
      print(v.json, {
        grant_id: grant.value.grant_id,
        expires_at: grant.value.expires_at,
        resource: audience.url,
        ...token,
      });
      return 0;
    };
  },
});
