import { ERROR_STATUS } from '../../src/model/errors.ts';
import type { Outcome, RawRequest } from './wire.ts';

// What every answer must be, whatever was sent: never a 5xx (nor a server error dressed as a
// 200: a JSON-RPC -32603, a `server_error` in a tool result or an AG-UI RUN_ERROR), a 4xx with a
// JSON body names a known error code and says in words what was wrong, and no answer shows a
// stack frame or a file path of the implementation.

/** The wire codes a 4xx may carry: the provider's own table, and the OAuth ones it speaks (RFC 6749 §5.2, RFC 7009 §2.2.1). */
const KNOWN_CODES = new Set<string>([...Object.keys(ERROR_STATUS), 'unsupported_token_type']);

/** Stack frames and paths of the implementation (test/support/http-api.ts#assertNoTrace, and more). */
const TRACES = [
  /\bat [\w.<>$]+ \((?:file:|node:|\/)[^)]*\)/,
  /\n\s+at [\w.<>$]+ /,
  /file:\/\/\//,
  /\/work\/|\/src\/(?:surfaces|operations|store|model|auth|policy|resolve)\//,
  /node_modules\//,
  /\.ts:\d+:\d+/,
  /node:internal/,
];

/** Text that is a server error whatever the status says. */
const HIDDEN_ERRORS = [/"error":"server_error"/, /"code":"server_error"/, /"code":-32603\b/];

/** The problems with an answer (none: it is fine). */
export function judge(request: RawRequest, requestText: string, outcome: Outcome): string[] {
  if (outcome.kind === 'unanswered') return unanswered(request, outcome);
  const { response } = outcome;
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`status ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  const text = response.body.toString('utf8');
  for (const pattern of HIDDEN_ERRORS) {
    if (pattern.test(text))
      problems.push(`a server error in a ${response.status} answer (${pattern.source})`);
  }
  if (!/javascript|text\/css/.test(type)) {
    for (const pattern of TRACES) {
      const m = pattern.exec(text);
      // What the request itself carried and the answer repeats back is not the server's.
      if (m && !requestText.includes(m[0]))
        problems.push(`a trace of the implementation in the answer: ${JSON.stringify(m[0])}`);
    }
  }
  // A HEAD answer has the headers of the GET without its body (RFC 9110 §9.3.2).
  const hasBody = request.method.toUpperCase() !== 'HEAD';
  if (response.status >= 400 && response.status < 500 && /json/.test(type) && !response.cut && hasBody) {
    const shape = errorShapeProblem(text);
    if (shape) problems.push(`${response.status} ${shape}`);
  }
  return problems;
}

function unanswered(request: RawRequest, outcome: Extract<Outcome, { kind: 'unanswered' }>): string[] {
  if (outcome.why === 'aborted') return [];
  if (outcome.why === 'timeout') return [`no answer: ${outcome.detail}`];
  if (outcome.why === 'garbled') return [`an answer that is not HTTP: ${outcome.detail}`];
  // A request broken at the HTTP level (a header Node's parser refuses, two framings, CONNECT):
  // Node may close the connection without a word. Everything else deserves an answer.
  if (request.oneShot) return [];
  return [
    `the connection ${outcome.why === 'reset' ? 'was reset' : 'closed'} without an answer (${outcome.detail})`,
  ];
}

/** What is wrong with a 4xx JSON body, or undefined. */
export function errorShapeProblem(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'answer says JSON but is not';
  }
  if (typeof body !== 'object' || body === null) return `error body is not an object: ${text.slice(0, 100)}`;
  const b = body as { error?: unknown; error_description?: unknown; jsonrpc?: unknown };
  if (b.jsonrpc === '2.0' && typeof b.error === 'object' && b.error !== null) {
    const e = b.error as { code?: unknown; message?: unknown };
    if (!Number.isInteger(e.code)) return `JSON-RPC error without an integer code: ${text.slice(0, 200)}`;
    return readable(e.message) ?? undefined;
  }
  if (typeof b.error !== 'string') return `error body without an error code: ${text.slice(0, 200)}`;
  if (!KNOWN_CODES.has(b.error)) return `unknown error code ${JSON.stringify(b.error)}`;
  return readable(b.error_description);
}

/** A description a person can read: a non-empty sentence, not a validator's JSON dump. */
function readable(description: unknown): string | undefined {
  if (typeof description !== 'string' || description.trim() === '') return 'error without a description';
  if (isJsonDump(description)) return `a description that is a JSON dump: ${description.slice(0, 120)}`;
  return undefined;
}

/** JSON text of an object or a list (a sentence that starts with a bracket it repeats is not). */
function isJsonDump(text: string): boolean {
  if (!/^\s*[[{]/.test(text)) return false;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null;
  } catch {
    return /^\s*(\[\s*)?\{\s*"/.test(text);
  }
}
