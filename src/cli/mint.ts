import { MS_PER_DAY } from '../model/vocabulary.ts';
import { childId, grantIdOfChild } from '../operations/child-ids.ts';
import { conformanceEnv } from '../operations/conformance-env.ts';
import { mintPackage } from '../operations/consent/package-tokens.ts';
import { DEMO_SUBJECT } from '../operations/demo-profile.ts';
import { createGrant } from '../operations/grants.ts';
import { issueGrantToken, issueSubjectToken } from '../operations/issue-tokens.ts';
import { COMMON_OPTIONS, configFrom, list, parse, usage, withProvider } from './args.ts';

export const MINT_HELP = `ppx mint env [--base-url URL] [--subject ID] [--client ID]
  Prints export lines for the public PPX conformance suite (fresh grants each run):
  PPX_PROVIDER_URL, PPX_PROVIDER_TOKEN, PPX_EXPIRED_TOKEN, PPX_REVOCABLE_GRANT_ID,
  PPX_REVOCABLE_TOKEN, PPX_REVOKE_TOKEN, PPX_DENY_CROSSDOMAIN_TOKEN,
  PPX_FORBIDDEN_WRITEBACK_TOKEN, PPX_CLIENT_ID, PPX_SUBJECT_ID, PPX_USER_TOKEN.
ppx mint package --grant ID --grant ID … [--resource URL] [--json]
  Prints a grant-package token over existing active grants of one grantee and subject
  (WIRE-NOTES §4); --resource defaults to the HTTP API (use BASE/mcp for the MCP surface).
ppx mint subject [--subject ID] [--ttl SECONDS] [--json]
  Prints an owner (subject) token.
ppx mint grant --client ID --namespaces a,b [--subject ID] [--keys k1,ns.k2] [--domains d1]
               [--operations read,query] [--purposes recommendation] [--cross-domain deny]
               [--writeback review_required] [--days N] [--single-use] [--ttl SECONDS] [--json]
  Creates an active grant for a registered client and prints a token bound to it.
Common: --db PATH --base-url URL (must match the server's, tokens are audience-bound).`;

export async function mintCommand(argv: string[]): Promise<number> {
  const args = parse(argv, {
    ...COMMON_OPTIONS,
    subject: { type: 'string' },
    client: { type: 'string' },
    namespaces: { type: 'string' },
    keys: { type: 'string' },
    domains: { type: 'string' },
    operations: { type: 'string' },
    purposes: { type: 'string' },
    'cross-domain': { type: 'string' },
    writeback: { type: 'string' },
    days: { type: 'string' },
    'single-use': { type: 'boolean' },
    ttl: { type: 'string' },
    json: { type: 'boolean' },
    grant: { type: 'string', multiple: true },
    resource: { type: 'string' },
  });
  if (!args.ok) return mintUsage(args.message);
  const { values: v, positionals } = args.value;
  if (v.help) return mintUsage();
  const kind = positionals[0];
  if (kind !== 'subject' && kind !== 'grant' && kind !== 'env' && kind !== 'package') {
    return mintUsage('say what to mint: subject, grant, package or env');
  }
  const ttl = v.ttl !== undefined ? Number(v.ttl) : undefined;
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl <= 0))
    return mintUsage('--ttl must be a positive number of seconds');
  const config = configFrom(v);
  if (typeof config === 'string') return mintUsage(config);
  return withProvider(config, async (deps) => {
    const subject = v.subject ?? DEMO_SUBJECT;
    if (kind === 'env') {
      const env = await conformanceEnv(deps, {
        subjectId: subject,
        ...(v.client ? { clientId: v.client } : {}),
      });
      if (!env.ok) {
        console.error(`ppx mint env: ${env.error.description}`);
        return 1;
      }
      for (const [k, value] of Object.entries(env.value)) console.log(`export ${k}=${shellQuote(value)}`);
      return 0;
    }
    if (kind === 'package') {
      // A grant is named by its PPX grant id or its child id (child-ids.ts).
      const named = v.grant ?? [];
      if (named.length === 0) return mintUsage('name the grants of the package: --grant ID --grant ID …');
      const ids = named.map((id) => grantIdOfChild(id) ?? id);
      const resource = v.resource;
      const pkg = await mintPackage(deps, ids, resource);
      if (!pkg.ok) {
        console.error(`ppx mint package: ${pkg.error.description}`);
        return 1;
      }
      print(v.json, {
        package_id: pkg.value.package_id,
        // The children as the MCP tools take them (`grant_id`): child ids.
        grant_ids: (pkg.value.grant_ids ?? []).map(childId).join(','),
        access_token: pkg.value.access_token,
        ...(pkg.value.refresh_token !== undefined ? { refresh_token: pkg.value.refresh_token } : {}),
        expires_in: pkg.value.expires_in,
      });
      return 0;
    }
    if (kind === 'subject') {
      const token = await issueSubjectToken(deps, subject, ttl);
      print(v.json, { subject_id: subject, ...token });
      return 0;
    }
    if (!v.client) return mintUsage('--client is required for a grant');
    const namespaces = list(v.namespaces) ?? ['core'];
    const days = v.days !== undefined ? Number(v.days) : 30;
    if (!Number.isFinite(days)) return mintUsage('--days must be a number');
    const grant = await createGrant(
      deps,
      {
        subject_id: subject,
        client_id: v.client,
        allowed_namespaces: namespaces,
        allowed_domains:
          list(v.domains) ??
          namespaces.filter((n) => n !== 'core').concat(namespaces.length === 1 ? ['core'] : []),
        allowed_operations: (list(v.operations) ?? ['read', 'query']) as never,
        purposes: (list(v.purposes) ?? ['recommendation']) as never,
        ...(v.keys !== undefined ? { allowed_claim_keys: list(v.keys) ?? [] } : {}),
        ...(v['cross-domain'] !== undefined ? { cross_domain_transfer: v['cross-domain'] as never } : {}),
        ...(v.writeback !== undefined ? { writeback_policy: v.writeback as never } : {}),
        expires_at: new Date(deps.clock().getTime() + days * MS_PER_DAY).toISOString(),
        ...(v['single-use'] ? { access_mode: 'single_use' as const } : {}),
      },
      'operator',
    );
    if (!grant.ok) {
      console.error(`ppx mint: ${grant.error.description}`);
      return 1;
    }
    const token = await issueGrantToken(deps, grant.value, ttl);
    print(v.json, { grant_id: grant.value.grant_id, expires_at: grant.value.expires_at, ...token });
    return 0;
  });
}

/** POSIX single-quoting, so every value survives `eval` whatever it holds. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function print(json: boolean | undefined, value: Record<string, unknown>) {
  if (json) console.log(JSON.stringify(value, null, 2));
  else for (const [k, v] of Object.entries(value)) console.log(`${k}=${v}`);
}

function mintUsage(problem?: string): number {
  return usage('mint', MINT_HELP, problem);
}
