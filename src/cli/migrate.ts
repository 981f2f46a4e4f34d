import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { databaseLabel } from '../config.ts';
import type { TransferSide } from '../store/transfer/side.ts';
import { type TableReport, transferStore } from '../store/transfer/transfer.ts';
import { fatal, parse, usage } from './args.ts';
import { databaseProblem, missingUser } from './database-problem.ts';
import { progressBar } from './progress-bar.ts';

// `ppx migrate --from A --to B`: a whole store from SQLite to PostgreSQL or back
// (store/transfer/transfer.ts), verified table by table before it commits. docs/deploy.md, "Moving
// between stores".

export const MIGRATE_HELP = `ppx migrate --from STORE --to STORE
  Moves a whole store (profiles, claims and their history, grants, token families, consent,
  audit log, change events, settings and keys) into an empty one, and checks that every table
  arrived unchanged before committing. STORE is sqlite:PATH (or a PATH) or a postgres:// URL
  (a schema of its own with ?options=-c%20search_path%3DNAME). Stop the servers on the source
  first: what they write during the move is not carried.`;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Location =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

function locationOf(raw: string): Location {
  if (/^postgres(ql)?:\/\//.test(raw)) return { kind: 'postgres', url: raw };
  return { kind: 'sqlite', path: raw.startsWith('sqlite:') ? raw.slice('sqlite:'.length) : raw };
}

function labelOf(where: Location): string {
  return where.kind === 'sqlite'
    ? resolve(where.path)
    : databaseLabel({ dbPath: '', databaseUrl: where.url });
}

/** Each store's code loads only when named: every ppx command starts by loading main.ts's imports. */
async function open(where: Location): Promise<TransferSide> {
  if (where.kind === 'sqlite')
    return (await import('../store/transfer/sqlite-side.ts')).sqliteSide(where.path);
  const noUser = missingUser(where.url, process.env);
  if (noUser !== undefined) throw new Error(noUser);
  try {
    return await (await import('../store/transfer/postgres-side.ts')).postgresSide(where.url, labelOf(where));
  } catch (error) {
    throw new Error(databaseProblem(error, labelOf(where)));
  }
}

export async function migrateCommand(argv: string[]): Promise<number> {
  const args = parse(argv, OPTIONS);
  if (!args.ok) return usage('migrate', MIGRATE_HELP, args.message);
  const v = args.value.values;
  if (v.help) return usage('migrate', MIGRATE_HELP);
  if (args.value.positionals.length > 0)
    return usage('migrate', MIGRATE_HELP, `unexpected "${args.value.positionals[0]}"`);
  if (!v.from || !v.to) return usage('migrate', MIGRATE_HELP, 'both --from and --to are required');
  const from = locationOf(v.from);
  const to = locationOf(v.to);
  if (from.kind === 'postgres' && !URL.canParse(from.url))
    return usage('migrate', MIGRATE_HELP, '--from is not a URL');
  if (to.kind === 'postgres' && !URL.canParse(to.url))
    return usage('migrate', MIGRATE_HELP, '--to is not a URL');
  if (labelOf(from) === labelOf(to))
    return usage('migrate', MIGRATE_HELP, '--from and --to name the same store');
  if (from.kind === 'sqlite' && !existsSync(from.path))
    return fatal('migrate', `no database at ${labelOf(from)}`);

  let source: TransferSide | undefined;
  let target: TransferSide | undefined;
  try {
    source = await open(from);
    target = await open(to);
    console.error(`moving ${source.label} → ${target.label}`);
    const started = performance.now();
    let bar: ReturnType<typeof progressBar> | undefined;
    const result = await transferStore(source, target, (done, total) => {
      bar ??= progressBar(total, 'rows');
      bar.update(done);
    });
    bar?.done();
    if (!result.ok) {
      if (result.tables) console.log(reportTable(result.tables));
      return fatal('migrate', result.message);
    }
    console.log(reportTable(result.tables));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `moved ${result.rows} rows in ${seconds} s; every table of ${target.label} matches the source, row for row`,
    );
    return 0;
  } catch (error) {
    return fatal('migrate', error instanceof Error ? error.message : String(error));
  } finally {
    await source?.close().catch(() => undefined);
    await target?.close().catch(() => undefined);
  }
}

function reportTable(tables: readonly TableReport[]): string {
  const width = Math.max(...tables.map((t) => t.table.length));
  const lines = tables.map(
    (t) =>
      `${t.table.padEnd(width)}  ${String(t.rows).padStart(10)}  ${t.sourceDigest === t.targetDigest ? 'same' : 'DIFFERS'}  ${t.targetDigest.slice(0, 16)}`,
  );
  return [`${'table'.padEnd(width)}  ${'rows'.padStart(10)}  check  sha256 of the rows`, ...lines].join('\n');
}
