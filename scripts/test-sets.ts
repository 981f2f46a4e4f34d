// The test files of each npm script, in one place (docs/testing.md): `node scripts/test-sets.ts
// <set> [node --test flags]` runs them under `node --test --test-concurrency=2`.
//
//   quick    the edit-test loop: unit tests, the store contract on SQLite, the requirements map and
//            one end-to-end file per surface
//   browser  the Chromium tests (*.browser.test.ts)
//   slow     the quick crash rounds, the fuzz regressions, the property tests and the files that take
//            more than 20 s on a 2-core machine
//   fast     every other test file
//   all      every test file (npm test), the slow ones first so that they do not run alone at the end
//   postgres the end-to-end suites and the store contract, for PPX_TEST_STORE=postgres

import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const QUICK_SURFACES = [
  'test/e2e/http/smoke.test.ts',
  'test/e2e/mcp/tools.test.ts',
  'test/e2e/a2a/tasks.test.ts',
  'test/e2e/agui/runs.test.ts',
  'test/e2e/oauth/flow.test.ts',
  'test/e2e/web/pages.test.ts',
  'packages/client/test/consent-v2.e2e.test.ts',
];

/** Over 20 s each on a 2-core machine (measured 2026-12-06, docs/testing.md). */
const SLOW_FILES = [
  'test/e2e/web/cli-accounts.test.ts',
  'test/e2e/oauth/register-bounds.test.ts',
  'test/e2e/instances/refresh-races.test.ts',
  'test/cli/files.test.ts',
  'test/cli/mint-flags.test.ts',
  'test/cli/migrate.test.ts',
  'test/cli/serve-lifecycle.test.ts',
  'test/e2e/attacks/secrets.test.ts',
  'test/e2e/agui/slow-readers.test.ts',
  'test/e2e/mcp/packages/lifecycle.test.ts',
  'test/e2e/mcp/packages/grant-id.test.ts',
  'test/e2e/mcp/generation-2026.test.ts',
];

const files = (...patterns: string[]): string[] => patterns.flatMap((p) => globSync(p).sort());

const browser = files('test/**/*.browser.test.ts', 'packages/*/test/**/*.browser.test.ts');
const slow = [...files('test/crash/*.test.ts', 'test/fuzz/*.test.ts', 'test/props/*.test.ts'), ...SLOW_FILES];
// The workspace packages' own tests (packages/client) run with the provider's.
const every = files('test/**/*.test.ts', 'packages/*/test/**/*.test.ts');
const fast = every.filter((f) => !browser.includes(f) && !slow.includes(f));

const SETS: Record<string, readonly string[]> = {
  quick: [
    ...files('test/unit/**/*.test.ts'),
    'test/store/sqlite-store.test.ts',
    'test/requirements.test.ts',
    ...QUICK_SURFACES,
  ],
  browser,
  slow,
  fast,
  all: [...slow, ...browser, ...fast],
  // With PPX_TEST_STORE=postgres (npm run test:postgres): the end-to-end suites and the store contract.
  postgres: [
    ...files('test/e2e/**/*.test.ts'),
    'test/store/postgres-store.test.ts',
    'test/store/postgres-concurrency.test.ts',
  ],
};

const [name, ...flags] = process.argv.slice(2);
const set = name === undefined ? undefined : SETS[name];
if (set === undefined) {
  console.error(`usage: node scripts/test-sets.ts <${Object.keys(SETS).join('|')}> [node --test flags]`);
  process.exit(2);
}
for (const f of set) {
  if (!every.includes(f)) {
    console.error(`test-sets: ${f} is not a test file (moved or renamed?)`);
    process.exit(2);
  }
}
// Node's compile cache, inherited by every test process and every `ppx` a test starts: a CLI test
// starts dozens, and each compiles the same modules again without it (about half a spawn's time).
const env = {
  ...process.env,
  NODE_COMPILE_CACHE: process.env['NODE_COMPILE_CACHE'] ?? join(tmpdir(), 'ppx-node-compile-cache'),
};
const run = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-timeout=120000', ...flags, ...new Set(set)],
  { stdio: 'inherit', env },
);
process.exit(run.status ?? 1);
