import type { z } from 'zod';
import { fail, ok, type Result } from './errors.ts';

/**
 * Parses untrusted input with a model schema. Never throws: a failure is an `invalid_request`
 * whose description names each offending field, so a person can fix the input.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): Result<z.infer<S>> {
  const r = schema.safeParse(input);
  if (r.success) return ok(r.data);
  return fail('invalid_request', `${what} is not valid: ${describeIssues(r.error.issues)}`, {
    details: {
      issues: r.error.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: i.message })),
    },
  });
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => {
    const path = i.path.length ? i.path.join('.') : '(body)';
    if (i.code === 'unrecognized_keys')
      return `${path}: unknown field(s) ${i.keys.map((k) => `"${k}"`).join(', ')}`;
    return `${path}: ${i.message}`;
  });
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
  return shown.join('; ') + more;
}
