// `ppx serve --help`, apart from the command: `ppx` lists every command's help, and loading the
// server (every surface and its SDK) only to print it would slow every other command down.

export const SERVE_HELP = `ppx serve [--port N] [--host H] [--db PATH] [--base-url URL] [--seed-demo] [--rate-limit N]
           [--database-url URL] [--dev-allow-http-client-metadata] [--enable-signup]
           [--audit-retention-days N] [--log-format text|json]
  Runs the provider. Env: PPX_PORT, PPX_HOST, PPX_DB, PPX_DATABASE_URL, PPX_BASE_URL, PPX_RATE_LIMIT,
  PPX_SEED_DEMO=1, PPX_DEV_ALLOW_HTTP_CLIENT_METADATA=1, PPX_ENABLE_SIGNUP=1,
  PPX_AUDIT_RETENTION_DAYS, PPX_LOG_FORMAT.
  Logs one line per request on stdout (method, path, status, time, caller kind; never a token),
  as JSON lines with --log-format json. SIGTERM or SIGINT stops it gracefully: it answers the
  requests in flight (for up to 10 s), then closes the store.
  --audit-retention-days N prunes audit events older than N days (at start, then every 6 hours);
  without it every event is kept.
  --database-url URL keeps the store in PostgreSQL (postgres://user@host/db) instead of the SQLite
  file --db names (docs/store.md, "PostgreSQL").
  --seed-demo seeds the demo profile (and the demo login demo / demo-password) when the database
  holds no profile yet.
  --enable-signup lets people create their own account at /signup (off by default).
  --dev-allow-http-client-metadata (development only) lets OAuth client ID metadata documents be
  fetched over http and from private or loopback addresses.`;
