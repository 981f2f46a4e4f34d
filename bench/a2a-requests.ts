import { post, type Target } from './harness.ts';

// The request of bench:a2a and bench:surfaces: A2A 1.0 `SendMessage` whose data part names the
// `get_effective_profile` skill, and its answer checked (a completed task, the PPX document in
// its artifact's data part).

let sequence = 0;

/** The request body for a context (a new message id each time it is built). */
export const a2aBodyFor = (context: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: {
        messageId: `bench-${process.pid}-${sequence++}`,
        role: 'ROLE_USER',
        parts: [
          { data: { method: 'get_effective_profile', params: { context } }, mediaType: 'application/json' },
        ],
      },
    },
  });

/** The headers of a call (a bearer token when given). */
export function a2aHeaders(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'a2a-version': '1.0',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

interface Answer {
  result?: {
    task?: { status?: { state?: string }; artifacts?: { parts?: { data?: { claims?: unknown[] } }[] }[] };
  };
}

/**
 * One call, checked: a completed task whose artifact's data holds `claims` claims (any non-empty
 * list when null). Resolves to the task, its document and the answer's size.
 */
export async function a2aCall(
  target: Target,
  body: string,
  claims: number | null,
): Promise<{ task: unknown; document: { claims: unknown[] }; bytes: number }> {
  const text = await post(target, body);
  const json = JSON.parse(text) as Answer;
  const task = json.result?.task;
  const document = task?.artifacts?.[0]?.parts?.[0]?.data;
  const got = document?.claims;
  if (
    task?.status?.state !== 'TASK_STATE_COMPLETED' ||
    !Array.isArray(got) ||
    got.length === 0 ||
    (claims !== null && got.length !== claims)
  ) {
    throw new Error(
      `${target.name}: expected a completed task with ${claims ?? 'some'} claims: ${text.slice(0, 300)}`,
    );
  }
  return { task, document: { ...document, claims: got }, bytes: Buffer.byteLength(text) };
}
