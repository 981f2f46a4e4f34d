import { fail, ok, type Result } from './model/errors.ts';

/** One typed configuration, built from CLI flags and environment variables (flags win). */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** Public base URL; the issuer and audience of tokens and the base of every advertised URL. */
  readonly baseUrl: string;
  readonly dbPath: string;
  /**
   * A PostgreSQL connection URL (postgres://…): when given, the store is PostgreSQL there and
   * `dbPath` is not used (docs/store.md, "PostgreSQL").
   */
  readonly databaseUrl?: string;
  readonly providerId: string;
  readonly providerName: string;
  /** Largest request body accepted, in bytes. */
  readonly bodyLimitBytes: number;
  /** Requests per window per caller; 0 turns limiting off. */
  readonly rateLimit: number;
  readonly rateWindowSeconds: number;
  /** Lifetime of access tokens minted for grants and subjects. */
  readonly tokenTtlSeconds: number;
  readonly seedDemo: boolean;
  /**
   * Development only: lets the OAuth server fetch client ID metadata documents over http and
   * from private, loopback or link-local addresses (docs/oauth.md). Off in production.
   */
  readonly devAllowHttpClientMetadata: boolean;
  /** Lets people create their own account on the web pages (`/signup`). Off by default. */
  readonly signupEnabled: boolean;
  /**
   * Audit events older than this many days are pruned (docs/audit.md), with the key lists they
   * leave unused and spent refresh tokens; undefined (the default) keeps every event.
   */
  readonly auditRetentionDays?: number;
  /** `text` (the default) or `json`: JSON lines for the access log and the server's messages. */
  readonly logFormat: 'text' | 'json';
  /**
   * Live consent requests one app, and all apps together, may have waiting for one person
   * (operations/consent/pending-caps.ts). `PPX_PENDING_CONSENT_CAPS=<per app>,<per person>`
   * raises them for load harnesses that keep many requests waiting; the defaults are 3 and 20.
   */
  readonly pendingCaps: PendingCaps;
  /**
   * Whether every DPoP proof must carry a nonce the server gave out (RFC 9449 §8, §9;
   * `PPX_DPOP_NONCE=1`). Off by default: a proof's iat window and its single-use jti suffice.
   */
  readonly dpopNonce?: boolean;
}

/** Caps on consent requests waiting for one person (docs/consent-flow.md, "Pending requests"). */
export interface PendingCaps {
  readonly perApp: number;
  readonly perPerson: number;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  dbPath: 'data/ppx.db',
  providerId: 'ppx:provider:local',
  providerName: 'PPX Reference Provider',
  bodyLimitBytes: 256 * 1024,
  rateLimit: 1200,
  rateWindowSeconds: 60,
  tokenTtlSeconds: 3600,
  pendingCaps: { perApp: 3, perPerson: 20 },
} as const;

export interface ConfigInput {
  readonly host?: string | undefined;
  readonly port?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly dbPath?: string | undefined;
  readonly databaseUrl?: string | undefined;
  readonly providerId?: string | undefined;
  readonly rateLimit?: string | undefined;
  readonly seedDemo?: boolean | undefined;
  readonly devAllowHttpClientMetadata?: boolean | undefined;
  readonly signupEnabled?: boolean | undefined;
  readonly auditRetentionDays?: string | undefined;
  readonly logFormat?: string | undefined;
}

/** Reads flags first, then PPX_* environment variables, then defaults. */
export function loadConfig(flags: ConfigInput, env: NodeJS.ProcessEnv): Result<Config> {
  const host = flags.host ?? env['PPX_HOST'] ?? DEFAULTS.host;
  const port = intOf(flags.port ?? env['PPX_PORT'] ?? env['PORT'], DEFAULTS.port);
  if (port === undefined || port < 0 || port > 65535) return fail('invalid_request', 'port must be 0..65535');
  const rateLimit = intOf(flags.rateLimit ?? env['PPX_RATE_LIMIT'], DEFAULTS.rateLimit);
  if (rateLimit === undefined || rateLimit < 0)
    return fail('invalid_request', 'rate limit must be 0 or more');
  const baseUrl = normalizeBaseUrl(
    flags.baseUrl ?? env['PPX_BASE_URL'] ?? `http://${hostForUrl(host)}:${port}`,
  );
  if (baseUrl === undefined) return fail('invalid_request', 'the base URL must be an absolute http(s) URL');
  const providerId = flags.providerId ?? env['PPX_PROVIDER_ID'] ?? DEFAULTS.providerId;
  if (!/^ppx:provider:[A-Za-z0-9_.:-]+$/.test(providerId)) {
    return fail('invalid_request', 'provider id must look like ppx:provider:<id>');
  }
  const retentionRaw = flags.auditRetentionDays ?? env['PPX_AUDIT_RETENTION_DAYS'];
  const auditRetentionDays = retentionRaw === undefined ? undefined : (intOf(retentionRaw, 0) ?? -1);
  if (auditRetentionDays !== undefined && auditRetentionDays < 1) {
    return fail('invalid_request', 'audit retention must be a whole number of days, 1 or more');
  }
  const databaseUrl = flags.databaseUrl ?? env['PPX_DATABASE_URL'];
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl)) {
    return fail('invalid_request', 'the database URL must be a postgres:// or postgresql:// URL');
  }
  const logFormat = flags.logFormat ?? env['PPX_LOG_FORMAT'] ?? 'text';
  if (logFormat !== 'text' && logFormat !== 'json') {
    return fail('invalid_request', 'the log format must be text or json');
  }
  const pendingCaps = pendingCapsOf(env['PPX_PENDING_CONSENT_CAPS']);
  if (pendingCaps === undefined) {
    return fail(
      'invalid_request',
      'PPX_PENDING_CONSENT_CAPS must be two whole numbers, 1 or more: <per app>,<per person>',
    );
  }
  return ok({
    host,
    port,
    baseUrl,
    dbPath: flags.dbPath ?? env['PPX_DB'] ?? DEFAULTS.dbPath,
    ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    providerId,
    providerName: env['PPX_PROVIDER_NAME'] ?? DEFAULTS.providerName,
    bodyLimitBytes: DEFAULTS.bodyLimitBytes,
    rateLimit,
    rateWindowSeconds: DEFAULTS.rateWindowSeconds,
    tokenTtlSeconds: DEFAULTS.tokenTtlSeconds,
    seedDemo: flags.seedDemo ?? env['PPX_SEED_DEMO'] === '1',
    devAllowHttpClientMetadata:
      flags.devAllowHttpClientMetadata ?? env['PPX_DEV_ALLOW_HTTP_CLIENT_METADATA'] === '1',
    signupEnabled: flags.signupEnabled ?? env['PPX_ENABLE_SIGNUP'] === '1',
    ...(auditRetentionDays !== undefined ? { auditRetentionDays } : {}),
    logFormat,
    pendingCaps,
    ...(env['PPX_DPOP_NONCE'] === '1' ? { dpopNonce: true } : {}),
  });
}

function pendingCapsOf(raw: string | undefined): PendingCaps | undefined {
  if (raw === undefined) return DEFAULTS.pendingCaps;
  const [perApp, perPerson, ...rest] = raw.split(',').map((n) => intOf(n.trim(), 0) ?? 0);
  if (rest.length > 0 || perApp === undefined || perPerson === undefined || perApp < 1 || perPerson < 1) {
    return undefined;
  }
  return { perApp, perPerson };
}

function isPostgresUrl(raw: string): boolean {
  return URL.canParse(raw) && ['postgres:', 'postgresql:'].includes(new URL(raw).protocol);
}

/** Where the store is, for messages: the file, or the PostgreSQL URL without its password. */
export function databaseLabel(config: Pick<Config, 'dbPath' | 'databaseUrl'>): string {
  if (config.databaseUrl === undefined) return config.dbPath;
  const url = new URL(config.databaseUrl);
  if (url.password !== '') url.password = '***';
  return url.href;
}

/** The base URL as published: http(s) only, no query or fragment, no trailing slash. */
function normalizeBaseUrl(raw: string): string | undefined {
  if (/\s/.test(raw) || !URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) return undefined;
  return url.href.replace(/\/+$/, '');
}

function intOf(raw: string | undefined, fallback: number): number | undefined {
  if (raw === undefined || raw === '') return fallback;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
