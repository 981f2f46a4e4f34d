// Why the provider could not open its PostgreSQL database, in words an operator acts on (issue 22
// item 17): not pg's stack. The server's own message is the operator's to read (it names their
// role or database), so it is quoted; the URL is shown without its password.

/** What `pg` and the server said, as far as the words need it. */
interface PgFailure {
  readonly code?: unknown;
  readonly message?: unknown;
}

/** Says why connecting to `label` (the URL without its password) failed, and what to check. */
export function databaseProblem(error: unknown, label: string): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as PgFailure;
  const said = typeof e.message === 'string' ? e.message : String(error);
  switch (e.code) {
    case 'ECONNREFUSED':
      return `nothing answers at ${label} (is PostgreSQL running, on that host and port?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${label} cannot be found; check the URL's host name`;
    case 'ETIMEDOUT':
      return `connecting to ${label} timed out; check the host, the port and any firewall between`;
    case '28000':
    case '28P01':
      return `PostgreSQL refused the login at ${label}: ${said}; check the URL's user name and password`;
    case '3D000':
      return `PostgreSQL at ${label} has no such database: ${said}; create it (createdb) or name another in the URL`;
    case '42501':
      return `the user of ${label} may not do what the provider needs: ${said}; it must be able to create a schema and tables there`;
    default:
      return `cannot open the database at ${label}: ${said}`;
  }
}

/**
 * A URL that names no user where pg would find none either (it falls back on PGUSER, then USER):
 * the server would only say "no PostgreSQL user name specified in startup packet".
 */
export function missingUser(
  url: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (new URL(url).username !== '' || env['PGUSER'] || env['USER']) return undefined;
  return 'the database URL names no user, and neither PGUSER nor USER is set: put one in the URL, as in postgres://USER@127.0.0.1:5432/DATABASE';
}
