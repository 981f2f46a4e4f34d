import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { type Config, loadConfig } from '../config.ts';
import type { Deps } from '../operations/deps.ts';
import { openProvider } from '../provider.ts';

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
    auditRetentionDays?: string;
    logFormat?: string;
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
      auditRetentionDays: extra.auditRetentionDays,
      logFormat: extra.logFormat,
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

/** Prints a command's help, after what was wrong with its arguments: exit 2, or 0 for --help. */
export function usage(cmd: string, help: string, problem?: string): number {
  if (problem) console.error(`ppx ${cmd}: ${problem}`);
  console.log(help);
  return problem ? 2 : 0;
}

/** Prints why a command failed (`ppx <cmd>: …`, or `ppx: …` without a command): exit 1. */
export function fatal(cmd: string | undefined, message: string): number {
  console.error(cmd === undefined ? `ppx: ${message}` : `ppx ${cmd}: ${message}`);
  return 1;
}

/** Opens the provider for a command, and closes it when the command is done, whatever happens. */
export async function withProvider(config: Config, run: (deps: Deps) => Promise<number>): Promise<number> {
  const deps = await openProvider(config);
  try {
    return await run(deps);
  } finally {
    await deps.store.close();
  }
}
