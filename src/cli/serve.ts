import { startAuditRetention } from '../operations/audit-retention.ts';
import { DEMO_LOGIN, seedDemoIfEmpty } from '../operations/seed-demo.ts';
import { openProvider } from '../provider.ts';
import { startServer } from '../server.ts';
import { COMMON_OPTIONS, configFrom, parse, usage } from './args.ts';

export const SERVE_HELP = `ppx serve [--port N] [--host H] [--db PATH] [--base-url URL] [--seed-demo] [--rate-limit N]
           [--dev-allow-http-client-metadata] [--enable-signup] [--audit-retention-days N]
  Runs the provider. Env: PPX_PORT, PPX_HOST, PPX_DB, PPX_BASE_URL, PPX_RATE_LIMIT, PPX_SEED_DEMO=1,
  PPX_DEV_ALLOW_HTTP_CLIENT_METADATA=1, PPX_ENABLE_SIGNUP=1, PPX_AUDIT_RETENTION_DAYS.
  --audit-retention-days N prunes audit events older than N days (at start, then every 6 hours);
  without it every event is kept.
  --seed-demo seeds the demo profile (and the demo login demo / demo-password) when the database
  holds no profile yet.
  --enable-signup lets people create their own account at /signup (off by default).
  --dev-allow-http-client-metadata (development only) lets OAuth client ID metadata documents be
  fetched over http and from private or loopback addresses.`;

export async function serveCommand(argv: string[]): Promise<number> {
  const args = parse(argv, {
    ...COMMON_OPTIONS,
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'seed-demo': { type: 'boolean' },
    'rate-limit': { type: 'string' },
    'dev-allow-http-client-metadata': { type: 'boolean' },
    'enable-signup': { type: 'boolean' },
    'audit-retention-days': { type: 'string' },
  });
  if (!args.ok) return serveUsage(args.message);
  const v = args.value.values;
  if (v.help) return serveUsage();
  const config = configFrom(v, {
    ...(v.port !== undefined ? { port: v.port } : {}),
    ...(v.host !== undefined ? { host: v.host } : {}),
    ...(v['seed-demo'] ? { seedDemo: true } : {}),
    ...(v['rate-limit'] !== undefined ? { rateLimit: v['rate-limit'] } : {}),
    ...(v['dev-allow-http-client-metadata'] ? { devAllowHttpClientMetadata: true } : {}),
    ...(v['enable-signup'] ? { signupEnabled: true } : {}),
    ...(v['audit-retention-days'] !== undefined ? { auditRetentionDays: v['audit-retention-days'] } : {}),
  });
  if (typeof config === 'string') return serveUsage(config);

  const deps = await openProvider(config);
  const seeded = config.seedDemo ? await seedDemoIfEmpty(deps) : false;
  const server = await startServer(deps, config, (m) => console.error(m));
  const retention =
    config.auditRetentionDays !== undefined
      ? startAuditRetention(deps, config.auditRetentionDays, (m) => console.error(m))
      : undefined;
  const base = config.baseUrl;
  console.log(
    `PPX provider listening on ${server.url} (database ${config.dbPath}${seeded ? ', demo profile seeded' : ''})`,
  );
  if (seeded) {
    console.log(
      `Demo login for the consent page (local demo only): ${DEMO_LOGIN.username} / ${DEMO_LOGIN.password}`,
    );
  }
  console.table([
    { what: 'discovery card', url: `${base}/.well-known/ppx-card.json` },
    { what: 'OpenAPI 3.1', url: `${base}/openapi.json` },
    { what: 'JWKS', url: `${base}/.well-known/jwks.json` },
    { what: 'extensions', url: `${base}/v1/extensions` },
    { what: 'profile summary', url: `${base}/v1/profile/summary` },
    { what: 'effective profile', url: `${base}/v1/profile/effective` },
    { what: 'MCP (Streamable HTTP)', url: `${base}/mcp` },
    { what: 'OAuth metadata', url: `${base}/.well-known/oauth-authorization-server` },
  ]);
  console.log(
    'Get a token: npx ppx mint subject   (or: npx ppx mint grant --client fragrance-demo --namespaces core,fragrance)',
  );

  const stop = async () => {
    retention?.stop();
    await server.close();
    await deps.store.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>(() => undefined);
}

function serveUsage(problem?: string): number {
  return usage('serve', SERVE_HELP, problem);
}
