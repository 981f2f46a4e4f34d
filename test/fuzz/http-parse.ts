// An HTTP/1.1 response read from raw bytes, as they arrive (RFC 9112): the status line, the
// headers, then a body framed by Content-Length, chunked, or by the end of the connection. The
// fuzzer speaks raw sockets because no HTTP client lets it send what it must (CR/LF inside a
// header, two Content-Lengths, bytes that are not UTF-8 in a header, a body cut off).

export interface ParsedHead {
  readonly status: number;
  /** Lower-cased names; values of a repeated header joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
}

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

const CRLF2 = Buffer.from('\r\n\r\n');

/** The most body bytes kept; the rest is counted but dropped (the OpenAPI document is ~0.3 MB). */
const KEEP_BYTES = 4 * 1024 * 1024;

export class ResponseParser {
  readonly #noBody: boolean;
  #pending: Buffer = Buffer.alloc(0);
  #head: ParsedHead | undefined;
  #framing: Framing = { kind: 'none' };
  readonly #body: Buffer[] = [];
  #kept = 0;
  #bodyBytes = 0;
  #done = false;
  /** Chunked: bytes left of the current chunk (+2 for its CRLF), or -1 between chunks. */
  #chunkLeft = -1;
  #trailers = false;
  /** Set when the bytes were not a response at all. */
  problem: string | undefined;

  constructor(requestMethod: string) {
    this.#noBody = requestMethod.toUpperCase() === 'HEAD';
  }

  get head(): ParsedHead | undefined {
    return this.#head;
  }

  get done(): boolean {
    return this.#done;
  }

  get bodyBytes(): number {
    return this.#bodyBytes;
  }

  body(): Buffer {
    return this.#body.length === 1 ? this.#body[0]! : Buffer.concat(this.#body);
  }

  /** Whether the body runs until the connection closes (no length, not chunked). */
  get untilClose(): boolean {
    return this.#framing.kind === 'close';
  }

  /** Takes bytes; true once the response is complete. */
  feed(chunk: Buffer): boolean {
    if (this.#done) return true;
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (!this.#done && this.#head === undefined) {
      if (!this.#readHead()) return false;
    }
    this.#readBody();
    return this.#done;
  }

  /** The connection ended: complete if the body was framed by the end. */
  end(): boolean {
    if (this.#head !== undefined && this.#framing.kind === 'close') this.#done = true;
    return this.#done;
  }

  #readHead(): boolean {
    const at = this.#pending.indexOf(CRLF2);
    if (at < 0) {
      if (this.#pending.length > 64 * 1024) this.problem = 'a response head larger than 64 KiB';
      return false;
    }
    const lines = this.#pending.subarray(0, at).toString('latin1').split('\r\n');
    this.#pending = this.#pending.subarray(at + 4);
    const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (!m) {
      this.problem = `not an HTTP response: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`;
      this.#done = true;
      return false;
    }
    const status = Number(m[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    // 1xx (100 Continue): an interim answer; the real one follows.
    if (status >= 100 && status < 200) return true;
    this.#head = { status, headers };
    const te = headers.get('transfer-encoding')?.toLowerCase();
    const length = headers.get('content-length');
    if (this.#noBody || status === 204 || status === 304) this.#framing = { kind: 'none' };
    else if (te?.includes('chunked')) this.#framing = { kind: 'chunked' };
    else if (length !== undefined) this.#framing = { kind: 'length', left: Number(length) };
    else this.#framing = { kind: 'close' };
    if (this.#framing.kind === 'none' || (this.#framing.kind === 'length' && this.#framing.left === 0)) {
      this.#done = true;
    }
    return true;
  }

  #keep(bytes: Buffer): void {
    this.#bodyBytes += bytes.length;
    if (this.#kept >= KEEP_BYTES) return;
    const part = bytes.subarray(0, KEEP_BYTES - this.#kept);
    this.#body.push(Buffer.from(part));
    this.#kept += part.length;
  }

  #readBody(): void {
    if (this.#done || this.#head === undefined) return;
    const f = this.#framing;
    if (f.kind === 'close') {
      if (this.#pending.length > 0) this.#keep(this.#pending);
      this.#pending = Buffer.alloc(0);
      return;
    }
    if (f.kind === 'length') {
      const take = Math.min(f.left, this.#pending.length);
      this.#keep(this.#pending.subarray(0, take));
      this.#pending = this.#pending.subarray(take);
      f.left -= take;
      if (f.left === 0) this.#done = true;
      return;
    }
    if (f.kind === 'chunked') this.#readChunks();
  }

  #readChunks(): void {
    for (;;) {
      if (this.#trailers) {
        // Trailer lines until an empty one.
        const at = this.#pending.indexOf('\r\n');
        if (at < 0) return;
        this.#pending = this.#pending.subarray(at + 2);
        if (at === 0) {
          this.#done = true;
          return;
        }
        continue;
      }
      if (this.#chunkLeft < 0) {
        const at = this.#pending.indexOf('\r\n');
        if (at < 0) return;
        const size = Number.parseInt(this.#pending.subarray(0, at).toString('latin1').split(';')[0]!, 16);
        this.#pending = this.#pending.subarray(at + 2);
        if (!Number.isFinite(size) || size < 0) {
          this.problem = 'a malformed chunk size';
          this.#done = true;
          return;
        }
        if (size === 0) {
          this.#trailers = true;
          continue;
        }
        this.#chunkLeft = size + 2;
      }
      if (this.#pending.length === 0) return;
      const take = Math.min(this.#chunkLeft, this.#pending.length);
      const data = this.#pending.subarray(0, take);
      // The chunk's own CRLF is not body.
      const bodyPart =
        take <= this.#chunkLeft - 2 ? data : data.subarray(0, Math.max(0, this.#chunkLeft - 2));
      this.#keep(bodyPart);
      this.#pending = this.#pending.subarray(take);
      this.#chunkLeft -= take;
      if (this.#chunkLeft === 0) this.#chunkLeft = -1;
      else return;
    }
  }
}
