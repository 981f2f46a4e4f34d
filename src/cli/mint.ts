import { COMMON_OPTIONS, configFrom, parse, positionalsOf, usage } from './args.ts';
import { servedBaseUrl } from './mint/base-url.ts';
import type { MintKind } from './mint/contract.ts';
import { MINT_ENV } from './mint/env.ts';
import { MINT_GRANT } from './mint/grant.ts';
import { MINT_PACKAGE } from './mint/package.ts';
import { MINT_SUBJECT } from './mint/subject.ts';
import { withProvider } from './open-provider.ts';

const KINDS: readonly MintKind[] = [MINT_ENV, MINT_PACKAGE, MINT_SUBJECT, MINT_GRANT];

export const MINT_HELP = `${KINDS.map((k) => k.help).join('\n')}
Common: --db PATH (the server's database; it must exist), or --database-url URL (its PostgreSQL
database; PPX_DATABASE_URL) --base-url URL (default: the base URL
the server last served on; tokens are bound to it, so another one is refused by that server).`;

export async function mintCommand(argv: string[]): Promise<number> {
  const kind = KINDS.find((k) => k.name === kindNamed(argv));
  if (kind === undefined) {
    const args = parse(argv, COMMON_OPTIONS);
    if (args.ok && args.value.values.help) return mintUsage();
    return mintUsage('say what to mint: subject, grant, package or env');
  }
  const started = kind.start(argv);
  if (!started.ok) return mintUsage(started.problem + belongsTo(kind, started.unknownFlag));
  const { values } = started;
  if (started.help) return mintUsage();
  const config = configFrom(values);
  if (typeof config === 'string') return mintUsage(config);
  const explicit =
    values['base-url'] !== undefined
      ? '--base-url'
      : process.env['PPX_BASE_URL'] !== undefined
        ? 'PPX_BASE_URL'
        : undefined;
  return withProvider(
    'mint',
    config,
    async (deps) => {
      const done = await started.run(deps);
      return typeof done === 'string' ? mintUsage(done) : done;
    },
    { settle: servedBaseUrl(explicit) },
  );
}

/**
 * The kind argv names: its first positional. Found by parsing with every kind's flags but not
 * strictly, so that `ppx mint --client x grant` works as well as `ppx mint grant --client x`;
 * the kind then parses argv again, strictly, with its own flags.
 */
function kindNamed(argv: string[]): string | undefined {
  return positionalsOf(argv, Object.assign({}, COMMON_OPTIONS, ...KINDS.map((k) => k.options)))[0];
}

/** " (a flag of ppx mint grant)", when a refused flag is another kind's. */
function belongsTo(kind: MintKind, flag: string | undefined): string {
  if (flag === undefined || !flag.startsWith('--')) return '';
  const owners = KINDS.filter((k) => k !== kind && flag.slice(2) in k.options);
  if (owners.length === 0) return '';
  return `; it is a flag of ${owners.map((k) => `ppx mint ${k.name}`).join(' and ')}, not of ppx mint ${kind.name}`;
}

function mintUsage(problem?: string): number {
  return usage('mint', MINT_HELP, problem);
}
