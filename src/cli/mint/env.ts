import { conformanceEnv } from '../../operations/seed/conformance-env.ts';
import { DEMO_SUBJECT } from '../../operations/seed/demo-profile.ts';
import { fatal } from '../args.ts';
import { extraArguments, mintKind } from './contract.ts';

export const MINT_ENV = mintKind({
  name: 'env',
  help: `ppx mint env [--subject ID] [--client ID]
  Prints export lines for the public PPX conformance suite (fresh grants each run):
  PPX_PROVIDER_URL, PPX_PROVIDER_TOKEN, PPX_EXPIRED_TOKEN, PPX_REVOCABLE_GRANT_ID,
  PPX_REVOCABLE_TOKEN, PPX_REVOKE_TOKEN, PPX_DENY_CROSSDOMAIN_TOKEN,
  PPX_FORBIDDEN_WRITEBACK_TOKEN, PPX_CLIENT_ID, PPX_SUBJECT_ID, PPX_USER_TOKEN.`,
  options: {
    subject: { type: 'string' },
    client: { type: 'string' },
  },
  prepare(v, positionals) {
    const problem = extraArguments(positionals);
    if (problem !== undefined) return problem;
    return async (deps) => {
      const env = await conformanceEnv(deps, {
        subjectId: v.subject ?? DEMO_SUBJECT,
        ...(v.client ? { clientId: v.client } : {}),
      });
      if (!env.ok) return fatal('mint env', env.error.description);
      for (const [k, value] of Object.entries(env.value)) console.log(`export ${k}=${shellQuote(value)}`);
      return 0;
    };
  },
});

/** POSIX single-quoting, so every value survives `eval` whatever it holds. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
