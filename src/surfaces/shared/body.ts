import { IncomingMessage } from 'node:http';
import { fail, ok, type Result } from '../../model/errors.ts';

const DRAIN_FACTOR = 8;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export interface BodySource {
  /** The bytes: Node's IncomingMessage and a web ReadableStream are both async iterables. */
  readonly stream: AsyncIterable<Uint8Array> | null;
  readonly contentLength: string | undefined;
  readonly contentType: string | undefined;
}

/**
 * Reads a request body with a hard size limit, without trusting Content-Length alone. Every
 * surface that reads a body (the JSON API, the OAuth endpoints, the web forms) goes through here.
 */
export async function readBodyBytes(source: BodySource, limit: number): Promise<Result<Uint8Array>> {
  const declared = source.contentLength;
  if (declared !== undefined && Number(declared) > limit) return tooLarge(limit);
  if (declared === '0' || source.stream === null) return ok(new Uint8Array(0));
  const whole = declared === undefined ? undefined : wholeBody(source.stream, Number(declared));
  if (whole !== undefined) return ok(whole);

  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of source.stream) {
      size += chunk.byteLength;
      if (size <= limit) chunks.push(chunk);
      // Past the limit, keep reading (and dropping) a while so the client sees the 413 rather than
      // a reset; past a few times the limit, leaving the loop destroys the stream and the connection.
      else if (size > DRAIN_FACTOR * limit) break;
    }
  } catch {
    // The request stream fails only when the client's side of the upload does: the connection
    // closed before the declared length arrived, or the HTTP parser refused a chunked body (Node
    // has then answered 400 itself). The client's failure, not the provider's: no 500, and no log
    // line, since anyone could cause one per connection.
    return fail('invalid_request', 'the request body ended before it was complete');
  }
  if (size > limit) return tooLarge(limit);
  return ok(chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks));
}

/**
 * The whole body, at once, when Node's parser already holds all of it: a small body comes in the
 * packet of its headers, and has all its declared bytes buffered before the handler first reads
 * (the parser may not have marked the message complete yet). Taken with one `read()` instead of
 * an async iterator over one chunk (its promises and turns were ~15 % of a small read's HTTP
 * handling: docs/benchmarks.md). Undefined otherwise: the stream is read as it comes.
 */
function wholeBody(stream: AsyncIterable<Uint8Array>, declared: number): Uint8Array | undefined {
  if (!(stream instanceof IncomingMessage)) return;
  // Bytes only, from a stream nobody reads yet, all of them there (the parser never buffers more
  // than the declared length: what follows belongs to the next request).
  if (stream.readableFlowing !== null || stream.readableEncoding !== null) return;
  if (stream.readableLength !== declared) return;
  return (stream.read() as Buffer | null) ?? undefined;
}

// One decoder for every body: without `stream`, decode() keeps no state between calls.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** readBodyBytes, as UTF-8 text. */
export async function readBodyText(source: BodySource, limit: number): Promise<Result<string>> {
  const bytes = await readBodyBytes(source, limit);
  if (!bytes.ok) return bytes;
  try {
    return ok(UTF8.decode(bytes.value));
  } catch {
    return fail('invalid_request', 'the request body is not valid UTF-8');
  }
}

/**
 * Reads a JSON request body. An empty body reads as `{}` so that endpoints whose inputs are all
 * optional accept it.
 */
export async function readJsonBody(source: BodySource, limit: number): Promise<Result<unknown>> {
  const text = await readBodyText(source, limit);
  if (!text.ok) return text;
  if (text.value === '') return ok({});
  const type = source.contentType ?? null;
  if (type === null || !JSON_TYPE.test(type)) {
    return fail(
      'unsupported_media_type',
      'send the request body as JSON with Content-Type: application/json',
    );
  }
  if (nestingOf(text.value) > MAX_NESTING) {
    return fail('invalid_request', `the request body nests deeper than ${MAX_NESTING} levels`);
  }
  try {
    return ok(JSON.parse(text.value));
  } catch (e) {
    const why = e instanceof SyntaxError ? e.message : 'parse error';
    return fail('invalid_request', `the request body is not valid JSON (${why})`);
  }
}

/**
 * How deep a JSON body may nest. No PPX, A2A or AG-UI message comes near it; past a few thousand
 * levels JSON.stringify overflows the stack, and SQLite's JSON functions stop at 1000.
 */
const MAX_NESTING = 100;

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
function nestingOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

function tooLarge(limit: number) {
  return fail('payload_too_large', `the request body is larger than the limit of ${limit} bytes`);
}
