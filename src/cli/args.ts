import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { type Config, loadConfig } from '../config.ts';

/** Flags every command that opens the provider accepts. */
export const COMMON_OPTIONS = {
  db: { type: 'string' },
  'base-url': { type: 'string' },
  'provider-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Parses argv strictly (an unknown flag is an error, never ignored) and turns parseArgs'
 * exception into a message for the user.
 */
export function parse<const O extends ParseArgsOptionsConfig>(argv: string[], options: O) {
  try {
    const value = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
    return { ok: true as const, value };
  } catch (e) {
    return { ok: false as const, message: e instanceof Error ? e.message : String(e) };
  }
}

export function configFrom(
  values: Record<string, unknown>,
  extra: {
    port?: string;
    host?: string;
    seedDemo?: boolean;
    rateLimit?: string;
    devAllowHttpClientMetadata?: boolean;
    signupEnabled?: boolean;
  } = {},
): Config | string {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const r = loadConfig(
    {
      dbPath: str('db'),
      baseUrl: str('base-url'),
      providerId: str('provider-id'),
      port: extra.port,
      host: extra.host,
      seedDemo: extra.seedDemo,
      rateLimit: extra.rateLimit,
      devAllowHttpClientMetadata: extra.devAllowHttpClientMetadata,
      signupEnabled: extra.signupEnabled,
    },
    process.env,
  );
  return r.ok ? r.value : r.error.description;
}

export function list(value: unknown): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
