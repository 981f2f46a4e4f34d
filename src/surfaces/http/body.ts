import { fail, ok, type Result } from '../../model/errors.ts';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Reads a JSON request body with a hard size limit, without trusting Content-Length alone.
 * An empty body reads as `{}` so that endpoints whose inputs are all optional accept it.
 */
export async function readJsonBody(req: Request, limit: number): Promise<Result<unknown>> {
  const declared = req.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) return tooLarge(limit);
  if (declared === '0' || req.body === null) return ok({});

  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return tooLarge(limit);
    }
    chunks.push(value);
  }
  if (size === 0) return ok({});
  const type = req.headers.get('content-type');
  if (type === null || !JSON_TYPE.test(type)) {
    return fail(
      'unsupported_media_type',
      'send the request body as JSON with Content-Type: application/json',
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    return fail('invalid_request', 'the request body is not valid UTF-8');
  }
  try {
    return ok(JSON.parse(text));
  } catch (e) {
    const why = e instanceof SyntaxError ? e.message : 'parse error';
    return fail('invalid_request', `the request body is not valid JSON (${why})`);
  }
}

function tooLarge(limit: number) {
  return fail('payload_too_large', `the request body is larger than the limit of ${limit} bytes`);
}
