import { CLIENT_HELP, clientCommand, SUBJECT_HELP, subjectCommand } from './accounts.ts';
import { AUDIT_HELP, auditCommand } from './audit.ts';
import { MIGRATE_HELP, migrateCommand } from './migrate.ts';
import { MINT_HELP, mintCommand } from './mint.ts';
import { exportCommand, FILES_HELP, importCommand, seedCommand } from './profile-files.ts';
import { RECEIPT_HELP, receiptCommand } from './receipt.ts';
import { SERVE_HELP } from './serve-help.ts';

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  // Loaded when run: the server brings every surface and its SDK, which no other command needs.
  serve: async (argv) => (await import('./serve.ts')).serveCommand(argv),
  mint: mintCommand,
  seed: seedCommand,
  export: exportCommand,
  import: importCommand,
  subject: subjectCommand,
  client: clientCommand,
  audit: auditCommand,
  migrate: migrateCommand,
  receipt: receiptCommand,
};

/** `ppx <command> …`; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    if (name !== undefined && name !== 'help' && name !== '--help' && name !== '-h')
      console.error(`ppx: unknown command "${name}"`);
    console.log(
      [
        'PPX provider',
        '',
        SERVE_HELP,
        '',
        MINT_HELP,
        '',
        FILES_HELP,
        '',
        SUBJECT_HELP,
        CLIENT_HELP,
        '',
        AUDIT_HELP,
        '',
        MIGRATE_HELP,
        '',
        RECEIPT_HELP,
      ].join('\n'),
    );
    return name === undefined || name === 'help' || name === '--help' || name === '-h' ? 0 : 2;
  }
  return command(rest);
}
