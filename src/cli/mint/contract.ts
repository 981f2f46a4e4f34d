import type { ParseArgsOptionsConfig } from 'node:util';
import type { Deps } from '../../operations/deps.ts';
import { COMMON_OPTIONS, type Flags, type ParseProblem, parse } from '../args.ts';

/**
 * One thing `ppx mint` can mint. Every kind parses only its own flags (plus the common ones), so a
 * flag of another kind is refused instead of being parsed and ignored.
 */
export interface MintKind {
  readonly name: string;
  /** Its lines of `ppx mint --help`. */
  readonly help: string;
  /** The flags it takes beyond COMMON_OPTIONS (also to say which kind a refused flag belongs to). */
  readonly options: ParseArgsOptionsConfig;
  start(argv: string[]): Started;
}

/** What parsing and the checks that need no store found: a problem (a usage error) or the work. */
type Started =
  | { readonly ok: false; readonly problem: string; readonly unknownFlag?: string }
  | {
      readonly ok: true;
      readonly values: Flags<typeof COMMON_OPTIONS>;
      readonly help: boolean;
      readonly run: Run;
    };

/** The work on the open provider: an exit code, or a usage problem only the store could show. */
type Run = (deps: Deps) => Promise<number | string>;

/** What `prepare` returns: a usage problem, or the work to run on the open provider. */
export type Prepared = string | Run;

export function mintKind<const O extends ParseArgsOptionsConfig>(kind: {
  readonly name: string;
  readonly help: string;
  readonly options: O;
  /** Checks the flags (positionals[0] is the kind's name) before any store is opened. */
  prepare(values: Flags<O & typeof COMMON_OPTIONS>, positionals: string[]): Prepared;
}): MintKind {
  return {
    name: kind.name,
    help: kind.help,
    options: kind.options,
    start(argv) {
      const args = parse(argv, { ...COMMON_OPTIONS, ...kind.options });
      if (!args.ok) return toProblem(args);
      const { values, positionals } = args.value;
      // The common flags are in every kind's options; the generic type cannot show it.
      const common = values as Flags<typeof COMMON_OPTIONS>;
      const help = common.help === true;
      const prepared = help ? async () => 0 : kind.prepare(values, positionals);
      if (typeof prepared === 'string') return { ok: false, problem: prepared };
      return { ok: true, values: common, help, run: prepared };
    },
  };
}

function toProblem(p: ParseProblem): Started {
  return {
    ok: false,
    problem: p.message,
    ...(p.unknownFlag !== undefined ? { unknownFlag: p.unknownFlag } : {}),
  };
}

/** The positionals after the kind's name, which no kind takes. */
export function extraArguments(positionals: string[]): string | undefined {
  const extra = positionals.slice(1);
  return extra.length > 0 ? `unexpected argument "${extra.join(' ')}"` : undefined;
}

/** `--json` prints one JSON object; otherwise `key=value` lines, which a shell can `eval`. */
export function print(json: boolean | undefined, value: Record<string, unknown>) {
  if (json) console.log(JSON.stringify(value, null, 2));
  else for (const [k, v] of Object.entries(value)) console.log(`${k}=${v}`);
}

/** `--ttl`'s problem, when it is not a positive whole number of seconds. */
export function ttlProblem(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const ttl = Number(raw);
  return Number.isInteger(ttl) && ttl > 0 ? undefined : '--ttl must be a positive number of seconds';
}
