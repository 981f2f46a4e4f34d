import { readFileSync, writeFileSync } from 'node:fs';
import { exportProfile } from '../operations/export-import/export-profile.ts';
import { importProfile } from '../operations/export-import/import-profile.ts';
import { DEMO_LOGIN, seedDemo, seedDemoLogin } from '../operations/seed/seed-demo.ts';
import { COMMON_OPTIONS, configFrom, fatal, parse, usage } from './args.ts';
import { withProvider } from './open-provider.ts';
import { SCALE_HELP, seedScaleCommand } from './seed-scale.ts';

export const FILES_HELP = `ppx export --subject ID [--out FILE]     the subject's whole profile as PPX JSON (stdout by default)
ppx import FILE [--replace]              validates a PPX profile file and stores it; a bad file writes nothing
ppx seed --demo                          (re)seeds the demo subject did:example:user-demo-0001 and its clients
ppx seed --scale N                       N generated subjects for scale tests (ppx seed --scale --help)
Only serve and seed create a database; every other command needs one (--db PATH or PPX_DB,
or --database-url URL or PPX_DATABASE_URL for PostgreSQL).`;

const MAX_IMPORT_BYTES = 32 * 1024 * 1024;

export async function exportCommand(argv: string[]): Promise<number> {
  const args = parse(argv, { ...COMMON_OPTIONS, subject: { type: 'string' }, out: { type: 'string' } });
  if (!args.ok) return usage('export', FILES_HELP, args.message);
  const v = args.value.values;
  if (v.help) return usage('export', FILES_HELP, FILES_HELP);
  if (!v.subject) return usage('export', FILES_HELP, '--subject is required');
  const config = configFrom(v);
  if (typeof config === 'string') return usage('export', FILES_HELP, config);
  const subjectId = v.subject;
  return withProvider('export', config, async (deps) => {
    const r = await exportProfile(deps, { kind: 'subject', subjectId });
    if (!r.ok) return fatal('export', r.error.description);
    const text = `${JSON.stringify(r.value, null, 2)}\n`;
    if (v.out) writeFileSync(v.out, text);
    else process.stdout.write(text);
    return 0;
  });
}

export async function importCommand(argv: string[]): Promise<number> {
  const args = parse(argv, { ...COMMON_OPTIONS, replace: { type: 'boolean' } });
  if (!args.ok) return usage('import', FILES_HELP, args.message);
  const { values: v, positionals } = args.value;
  if (v.help) return usage('import', FILES_HELP, FILES_HELP);
  const file = positionals[0];
  if (!file) return usage('import', FILES_HELP, 'name the file to import');
  let doc: unknown;
  try {
    const text = readFileSync(file);
    if (text.byteLength > MAX_IMPORT_BYTES)
      return fatal(undefined, `${file} is larger than ${MAX_IMPORT_BYTES} bytes`);
    doc = JSON.parse(text.toString('utf8'));
  } catch (e) {
    return fatal(undefined, `cannot read ${file} as JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const config = configFrom(v);
  if (typeof config === 'string') return usage('import', FILES_HELP, config);
  return withProvider('import', config, async (deps) => {
    const r = await importProfile(deps, doc, { replace: v.replace === true });
    if (!r.ok)
      return fatal(undefined, `${file} was not imported, nothing was written. ${r.error.description}`);
    console.log(
      `imported ${r.value.claims} claims and ${r.value.context_modifiers} context modifiers for ${r.value.subject_id}` +
        (r.value.restored_grants ? `, restored ${r.value.restored_grants} grants issued here` : '') +
        (r.value.skipped_grants
          ? ` (${r.value.skipped_grants} grants skipped: grants are not transferable)`
          : ''),
    );
    return 0;
  });
}

export async function seedCommand(argv: string[]): Promise<number> {
  if (argv.some((a) => a === '--scale' || a.startsWith('--scale='))) {
    if (argv.includes('--help')) return usage('seed', SCALE_HELP, SCALE_HELP);
    return seedScaleCommand(argv);
  }
  const args = parse(argv, { ...COMMON_OPTIONS, demo: { type: 'boolean' } });
  if (!args.ok) return usage('seed', FILES_HELP, args.message);
  if (args.value.values.help) return usage('seed', FILES_HELP, FILES_HELP);
  if (!args.value.values.demo) return usage('seed', FILES_HELP, 'say what to seed: --demo, or --scale N');
  const config = configFrom(args.value.values);
  if (typeof config === 'string') return usage('seed', FILES_HELP, config);
  return withProvider(
    'seed',
    config,
    async (deps) => {
      await seedDemo(deps);
      const login = await seedDemoLogin(deps);
      console.log('seeded did:example:user-demo-0001 with clients fragrance-demo and travel-demo');
      if (login) console.log(`demo login (local demo only): ${DEMO_LOGIN.username} / ${DEMO_LOGIN.password}`);
      return 0;
    },
    { mayCreate: true },
  );
}
