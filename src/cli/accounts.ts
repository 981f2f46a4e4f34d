import { redirectUriProblem, registerClient } from '../operations/accounts/clients.ts';
import { createPasskeyAccount } from '../operations/accounts/passkey-accounts.ts';
import { createSubject, SubjectInput } from '../operations/accounts/subjects-and-sessions.ts';
import { COMMON_OPTIONS, configFrom, fatal, parse, usage } from './args.ts';
import { withProvider } from './open-provider.ts';

export const SUBJECT_HELP = `ppx subject add --username U [--password P | --no-password] [--subject ID]
  Creates a subject who can sign in to the consent page (with an empty profile when the subject
  has none). The password comes from --password, else PPX_PASSWORD, else one line of stdin
  (prefer the last two: a flag shows up in the process list). --subject defaults to a new id.
  With --no-password the account has no password: a one-time link is printed (it works once,
  for 24 hours) at which the person adds their first passkey (docs/passkeys.md).`;

export const CLIENT_HELP = `ppx client add --id ID --name NAME [--redirect-uri URL…] [--confidential --secret S]
  Registers (or updates) a client that may ask subjects for consent. Redirect URIs are matched
  exactly. Without any, the client is a back-channel client: it asks over /v1/consent/request,
  the consent page ends on this provider's own page, and the client learns the outcome at
  /v1/consent/token (it cannot use /oauth/authorize). A confidential client needs a secret of at
  least 16 characters.`;

/** `ppx subject add …` */
export async function subjectCommand(argv: string[]): Promise<number> {
  const args = parse(argv, {
    ...COMMON_OPTIONS,
    username: { type: 'string' },
    password: { type: 'string' },
    subject: { type: 'string' },
    'no-password': { type: 'boolean' },
  });
  if (!args.ok) return usage('subject', SUBJECT_HELP, args.message);
  const { values: v, positionals } = args.value;
  if (v.help) return usage('subject', SUBJECT_HELP);
  if (positionals[0] !== 'add' || positionals.length > 1) {
    return usage('subject', SUBJECT_HELP, 'the only subcommand is "add"');
  }
  if (!v.username) return usage('subject', SUBJECT_HELP, '--username is required');
  if (v['no-password']) {
    if (v.password !== undefined)
      return usage('subject', SUBJECT_HELP, '--no-password and --password exclude each other');
    const config = configFrom(v);
    if (typeof config === 'string') return usage('subject', SUBJECT_HELP, config);
    const username = v.username;
    return withProvider('subject', config, async (deps) => {
      const r = await createPasskeyAccount(deps, {
        username,
        ...(v.subject !== undefined ? { subject_id: v.subject } : {}),
      });
      if (!r.ok) return fatal('subject', r.error.description);
      console.log(`created subject ${r.value.subject_id} (sign-in name "${r.value.username}", no password)`);
      console.log(`one-time link to add a passkey (works once, within 24 hours): ${r.value.link}`);
      return 0;
    });
  }
  const password = v.password ?? process.env['PPX_PASSWORD'] ?? (await passwordFromStdin());
  if (!password) {
    return usage('subject', SUBJECT_HELP, 'give a password (--password, PPX_PASSWORD or one line on stdin)');
  }
  const config = configFrom(v);
  if (typeof config === 'string') return usage('subject', SUBJECT_HELP, config);
  // createSubject trusts its caller to have checked the input against SubjectInput.
  const input = SubjectInput.safeParse({
    username: v.username,
    password,
    ...(v.subject !== undefined ? { subject_id: v.subject } : {}),
  });
  if (!input.success) return fatal('subject', input.error.issues[0]?.message ?? 'invalid input');
  return withProvider('subject', config, async (deps) => {
    const r = await createSubject(deps, input.data);
    if (!r.ok) return fatal('subject', r.error.description);
    console.log(`created subject ${r.value.subject_id} (sign-in name "${r.value.username}")`);
    return 0;
  });
}

/** `ppx client add …` */
export async function clientCommand(argv: string[]): Promise<number> {
  const args = parse(argv, {
    ...COMMON_OPTIONS,
    id: { type: 'string' },
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    confidential: { type: 'boolean' },
    secret: { type: 'string' },
  });
  if (!args.ok) return usage('client', CLIENT_HELP, args.message);
  const { values: v, positionals } = args.value;
  if (v.help) return usage('client', CLIENT_HELP);
  if (positionals[0] !== 'add' || positionals.length > 1) {
    return usage('client', CLIENT_HELP, 'the only subcommand is "add"');
  }
  if (!v.id) return usage('client', CLIENT_HELP, '--id is required');
  if (!v.name) return usage('client', CLIENT_HELP, '--name is required');
  const redirects = v['redirect-uri'] ?? [];
  const problem = redirects.map(redirectUriProblem).find((p) => p !== undefined);
  if (problem !== undefined) return usage('client', CLIENT_HELP, problem);
  if (v.secret !== undefined && !v.confidential) {
    return usage('client', CLIENT_HELP, '--secret only goes with --confidential');
  }
  if (v.confidential && v.secret === undefined) {
    return usage('client', CLIENT_HELP, 'a --confidential client needs --secret (16 characters or more)');
  }
  const config = configFrom(v);
  if (typeof config === 'string') return usage('client', CLIENT_HELP, config);
  return withProvider('client', config, async (deps) => {
    const r = await registerClient(deps, {
      client_id: v.id!,
      name: v.name!,
      redirect_uris: redirects,
      kind: v.confidential ? 'confidential' : 'public',
      ...(v.secret !== undefined ? { secret: v.secret } : {}),
    });
    if (!r.ok) return fatal('client', r.error.description);
    const uris =
      r.value.redirect_uris.length > 0
        ? `with redirect URIs ${r.value.redirect_uris.join(', ')}`
        : "with no redirect URI (a back-channel client: its consent ends on this provider's page, and it learns the outcome at /v1/consent/token)";
    console.log(`registered ${r.value.kind} client ${r.value.client_id} ("${r.value.name}") ${uris}`);
    return 0;
  });
}

/** The first line of stdin, when stdin is not a terminal (a pipe or a file). */
async function passwordFromStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    chunks.push(b);
    size += b.length;
    if (size > 4096) break;
  }
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  return line === '' ? undefined : line;
}
