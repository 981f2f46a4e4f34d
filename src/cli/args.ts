import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { type Config, loadConfig } from '../config.ts';
import { closest } from './suggest.ts';

/** Flags every command that opens the provider accepts. */
export const COMMON_OPTIONS = {
  db: { type: 'string' },
  'database-url': { type: 'string' },
  'base-url': { type: 'string' },
  'provider-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Why argv did not parse; `unknownFlag` (as typed, e.g. `--resource`) when a flag is not known. */
export interface ParseProblem {
  readonly ok: false;
  readonly message: string;
  readonly unknownFlag?: string;
}

/**
 * Parses argv strictly (an unknown flag is an error, never ignored) and turns parseArgs'
 * exception into a message for the user. An unknown flag is found first, from parseArgs' own
 * tokens rather than its English message, so that it can be named with the nearest known flag.
 */
export function parse<const O extends ParseArgsOptionsConfig>(argv: string[], options: O) {
  const unknown = unknownFlag(argv, options);
  if (unknown !== undefined) return unknown;
  try {
    const value = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
    return { ok: true as const, value };
  } catch (e) {
    return { ok: false as const, message: e instanceof Error ? e.message : String(e) };
  }
}

/** The positionals of argv, flags of `options` taking their values, anything unknown ignored. */
export function positionalsOf(argv: string[], options: ParseArgsOptionsConfig): string[] {
  return parseArgs({ args: argv, allowPositionals: true, strict: false, options }).positionals;
}

function unknownFlag(argv: string[], options: ParseArgsOptionsConfig): ParseProblem | undefined {
  const { tokens } = parseArgs({ args: argv, allowPositionals: true, strict: false, tokens: true, options });
  const shorts = new Set(Object.values(options).map((o) => o.short));
  const token = tokens.find(
    (t) => t.kind === 'option' && !(t.name in options) && !(t.rawName.length === 2 && shorts.has(t.name)),
  );
  if (token?.kind !== 'option') return undefined;
  const typed = token.rawName;
  const near = typed.startsWith('--') ? closest(token.name, Object.keys(options)) : undefined;
  return {
    ok: false,
    message: `unknown flag ${typed}${near !== undefined ? ` (did you mean --${near}?)` : ''}`,
    unknownFlag: typed,
  };
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
      databaseUrl: str('database-url'),
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

/** The parsed flags of a command that takes `options`, as `parse` returns them. */
export type Flags<O extends ParseArgsOptionsConfig> = Extract<
  ReturnType<typeof parse<O>>,
  { ok: true }
>['value']['values'];
