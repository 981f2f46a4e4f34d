import { type ClientError, fail, ok, type PpxCode, type Result } from './result.ts';

/** The fetch this library calls: the global one unless the caller gives another. */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: unknown;
}

/** One request; a network failure is a value, never a throw. */
export async function send(fetcher: Fetch, url: string, init: RequestInit): Promise<Result<Answer>> {
  let res: Response;
  try {
    res = await fetcher(url, init);
  } catch (e) {
    return fail('network_error', `could not reach ${new URL(url).origin}: ${(e as Error).message}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return ok({ status: res.status, headers: res.headers, json });
}

/** The error of a failed answer: the PPX code and words of its body, with its status. */
export function errorOf(a: Answer): ClientError {
  const body = a.json as {
    error?: unknown;
    error_description?: unknown;
    grant_id?: unknown;
    details?: unknown;
  };
  if (typeof body?.error === 'string') {
    return {
      code: body.error as PpxCode,
      description: typeof body.error_description === 'string' ? body.error_description : body.error,
      status: a.status,
      ...(typeof body.grant_id === 'string' ? { grantId: body.grant_id } : {}),
      ...(typeof body.details === 'object' && body.details !== null
        ? { details: body.details as Record<string, unknown> }
        : {}),
    };
  }
  return {
    code: 'invalid_response',
    description: `the provider answered ${a.status} without a PPX error`,
    status: a.status,
  };
}

/** The body of a 2xx answer as T, or the answer's error. */
export function bodyOf<T>(a: Answer): Result<T> {
  if (a.status >= 200 && a.status < 300 && a.json !== undefined) return ok(a.json as T);
  return { ok: false, error: errorOf(a) };
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
