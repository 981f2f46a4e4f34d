import { databaseLabel } from '../config.ts';
import { startA2aTaskRetention } from '../operations/a2a/tasks.ts';
import { startAuditRetention } from '../operations/audit/retention.ts';
import { startConsentRetention } from '../operations/consent/retention.ts';
import { rememberServedBaseUrl } from '../operations/provider/served-base-url.ts';
import { DEMO_LOGIN, seedDemoIfEmpty } from '../operations/seed/seed-demo.ts';
import { providerOn } from '../provider.ts';
import { type RunningServer, startServer } from '../server.ts';
import { COMMON_OPTIONS, configFrom, fatal, parse, usage } from './args.ts';
import { logLines } from './log-lines.ts';
import { openStoreOrSay } from './open-provider.ts';
import { SERVE_HELP } from './serve-help.ts';

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
    'log-format': { type: 'string' },
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
    ...(v['log-format'] !== undefined ? { logFormat: v['log-format'] } : {}),
  });
  if (typeof config === 'string') return serveUsage(config);

  const store = await openStoreOrSay('serve', config);
  if (typeof store === 'number') return store;
  const deps = await providerOn(store, config, () => new Date());
  const lines = logLines(config.logFormat);
  const say = (text: string) => lines.message('info', text);
  const seeded = config.seedDemo ? await seedDemoIfEmpty(deps) : false;
  let server: RunningServer;
  try {
    server = await startServer(deps, config, (m) => lines.message('error', m), { accessLog: lines.access });
  } catch (e) {
    await deps.store.close();
    return fatal('serve', listenProblem(e, config.host, config.port));
  }
  await rememberServedBaseUrl(deps, config.baseUrl);
  const retention =
    config.auditRetentionDays !== undefined
      ? startAuditRetention(deps, config.auditRetentionDays, say)
      : undefined;
  const taskRetention = startA2aTaskRetention(deps, say);
  const consentRetention = startConsentRetention(deps, say);
  const base = config.baseUrl;
  say(
    `PPX provider listening on ${server.url} (database ${databaseLabel(config)}${seeded ? ', demo profile seeded' : ''})`,
  );
  if (seeded) {
    say(
      `Demo login for the web app and the consent page (local demo only): ${DEMO_LOGIN.username} / ${DEMO_LOGIN.password}`,
    );
  }
  const urls = [
    { what: "the person's web app", url: `${base}/app` },
    { what: 'discovery card', url: `${base}/.well-known/ppx-card.json` },
    { what: 'OpenAPI 3.1', url: `${base}/openapi.json` },
    { what: 'JWKS', url: `${base}/.well-known/jwks.json` },
    { what: 'extensions', url: `${base}/v1/extensions` },
    { what: 'profile summary', url: `${base}/v1/profile/summary` },
    { what: 'effective profile', url: `${base}/v1/profile/effective` },
    { what: 'MCP (Streamable HTTP)', url: `${base}/mcp` },
    { what: 'A2A agent card', url: `${base}/.well-known/agent-card.json` },
    { what: 'OAuth metadata', url: `${base}/.well-known/oauth-authorization-server` },
    { what: 'health, readiness', url: `${base}/healthz, ${base}/readyz` },
  ];
  if (lines.json) for (const { what, url } of urls) say(`${what}: ${url}`);
  else console.table(urls);
  say(
    'Get a token: npx ppx mint subject   (or: npx ppx mint grant --client fragrance-demo --namespaces core,fragrance [--for mcp])',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: finishing the requests in flight, then stopping`);
    retention?.stop();
    taskRetention.stop();
    consentRetention.stop();
    await server.drain(DRAIN_GRACE_MS);
    await deps.store.close();
    say('stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  return new Promise<number>(() => undefined);
}

/** How long a graceful stop waits for what is still open (a stream) before closing it. */
const DRAIN_GRACE_MS = 10_000;

/** Why the server could not listen, in words (not a stack). */
function listenProblem(e: unknown, host: string, port: number): string {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return `port ${port} is in use (is another ppx serve running?); choose another with --port or PPX_PORT`;
  }
  if (code === 'EACCES') return `not allowed to listen on port ${port}; choose one above 1023 with --port`;
  if (code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine; check --host`;
  return `cannot listen on ${host}:${port}: ${e instanceof Error ? e.message : String(e)}`;
}

function serveUsage(problem?: string): number {
  return usage('serve', SERVE_HELP, problem);
}
