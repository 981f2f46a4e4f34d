import { DEMO_SUBJECT } from '../../operations/seed/demo-profile.ts';
import { issueSubjectToken } from '../../operations/tokens/issue-tokens.ts';
import { extraArguments, mintKind, print, ttlProblem } from './contract.ts';

export const MINT_SUBJECT = mintKind({
  name: 'subject',
  help: `ppx mint subject [--subject ID] [--ttl SECONDS] [--json]
  Prints an owner (subject) token, for the HTTP API.`,
  options: {
    subject: { type: 'string' },
    ttl: { type: 'string' },
    json: { type: 'boolean' },
  },
  prepare(v, positionals) {
    const problem = extraArguments(positionals) ?? ttlProblem(v.ttl);
    if (problem !== undefined) return problem;
    const subject = v.subject ?? DEMO_SUBJECT;
    return async (deps) => {
      const token = await issueSubjectToken(deps, subject, v.ttl !== undefined ? Number(v.ttl) : undefined);
      print(v.json, { subject_id: subject, ...token });
      return 0;
    };
  },
});
