import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Config, DEFAULTS, databaseLabel } from '../config.ts';
import type { Deps } from '../operations/deps.ts';
import { openConfiguredStore, providerOn } from '../provider.ts';
import type { Store } from '../store/store.ts';
import { fatal } from './args.ts';
import { databaseProblem, missingUser } from './database-problem.ts';

export interface OpenOptions {
  /**
   * Only `serve` and `seed` make a database. Any other command run from the wrong folder would
   * otherwise create an empty one there and then report the client or subject as unknown.
   */
  readonly mayCreate?: boolean;
  /** The config to run with, once the store can be read (mint takes the server's base URL from it). */
  readonly settle?: (store: Store, config: Config) => Promise<Config>;
}

/**
 * Opens the provider for a command, and closes it when the command is done, whatever happens.
 * The same Deps as provider.ts#openProvider, built here so that the CLI can look at the database
 * (does it exist, what did the server record) before the provider is built on it.
 */
export async function withProvider(
  cmd: string,
  config: Config,
  run: (deps: Deps) => Promise<number>,
  options: OpenOptions = {},
): Promise<number> {
  // A PostgreSQL database is the server's (it exists, or connecting fails); a file may be missing.
  const file = config.databaseUrl === undefined && config.dbPath !== ':memory:';
  if (file && !options.mayCreate && !existsSync(config.dbPath)) {
    return fatal(cmd, missingDatabase(config.dbPath));
  }
  const opened = await openStoreOrSay(cmd, config);
  if (typeof opened === 'number') return opened;
  const store = opened;
  try {
    const settled = options.settle ? await options.settle(store, config) : config;
    return await run(await providerOn(store, settled, () => new Date()));
  } finally {
    await store.close();
  }
}

/**
 * The store the config names, or the exit status after saying in words why it cannot be opened
 * (a PostgreSQL server that does not answer or refuses the login: never pg's stack).
 */
export async function openStoreOrSay(cmd: string, config: Config): Promise<Store | number> {
  const noUser = config.databaseUrl === undefined ? undefined : missingUser(config.databaseUrl, process.env);
  if (noUser !== undefined) return fatal(cmd, noUser);
  try {
    return await openConfiguredStore(config);
  } catch (error) {
    if (config.databaseUrl === undefined) throw error;
    return fatal(cmd, databaseProblem(error, databaseLabel(config)));
  }
}

/** Says which file was looked for, and how to name the right one. */
function missingDatabase(path: string): string {
  const where =
    path === DEFAULTS.dbPath && process.env['PPX_DB'] === undefined
      ? ` (the default, ${DEFAULTS.dbPath} under the current folder)`
      : '';
  return (
    `no database at ${resolve(path)}${where}. Point at the server's database with --db PATH or ` +
    'PPX_DB=PATH (ppx serve and ppx seed --demo create one)'
  );
}
