import { type Draft, type DraftContext, encode, pairsOf, SPARE_TOKEN, sample } from './draft.ts';
import { JWT_FLAWS } from './jwt-forge.ts';
import { badUtf8, deepNested, huge, malformed, withBadUtf8, wrongType } from './mutate.ts';
import type { Target } from './targets.ts';
import { type Json, randomJson, randomKey, randomNumber, randomString } from './values.ts';

// The generators: each breaks a careful client's request (draft.ts) in one way. Which apply
// depends on the target (a JSON-RPC batch only means something at /mcp and /a2a). Slow and cut-off
// uploads cost time, not bytes: their weights keep them to a sampled fraction of the run.

export interface Generator {
  readonly name: string;
  /** Relative to the others that apply to the same target. */
  readonly weight: number;
  applies(target: Target): boolean;
  apply(ctx: DraftContext, draft: Draft): void;
}

const hasBody = (t: Target) => t.body !== 'none';
const jsonBody = (t: Target) =>
  t.body === 'json' || t.body === 'mcp' || t.body === 'a2a' || t.body === 'agui';
const bearer = (t: Target) => t.credentials.some(([c]) => c !== 'none' && !c.startsWith('session'));

/** The draft's body as JSON text (forms and params as a JSON object). */
function bodyText(draft: Draft): string {
  const b = draft.body;
  if (b === undefined) return '{}';
  if (b.kind === 'json') return JSON.stringify(b.value);
  if (b.kind === 'text') return b.text;
  if (b.kind === 'bytes') return b.bytes.toString('latin1');
  return JSON.stringify(Object.fromEntries(b.fields));
}

function bodyValue(draft: Draft): Json {
  const b = draft.body;
  if (b?.kind === 'json') return b.value;
  if (b?.kind === 'form') return Object.fromEntries(b.fields);
  return {};
}

/** The draft's body as the text it is sent as (a form urlencoded). */
function renderedBody(draft: Draft): string {
  const b = draft.body;
  if (b?.kind === 'form') return b.fields.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return bodyText(draft);
}

/** Sets a JSON body, keeping a form a form when the target takes forms. */
function setText(draft: Draft, text: string): void {
  draft.body = { kind: 'text', text };
  if (draft.contentType === undefined) draft.contentType = 'application/json';
}

const valid: Generator = {
  name: 'valid',
  weight: 3,
  applies: () => true,
  apply: () => undefined,
};

const wrongTypes: Generator = {
  name: 'wrong-types',
  weight: 3,
  applies: (t) => hasBody(t) || t.query !== undefined,
  apply(ctx, draft) {
    const { rand } = ctx;
    if (draft.body === undefined || (draft.query.length > 0 && rand.chance(0.4))) {
      const value = Object.fromEntries(draft.query) as Json;
      draft.query = pairsOf(wrongType(rand, value));
      if (rand.chance(0.3))
        draft.query.push([rand.pick(draft.query.map(([k]) => k).concat('x')), randomString(rand)]);
      return;
    }
    const mutated = wrongType(rand, bodyValue(draft));
    if (draft.body.kind === 'form') draft.body = { kind: 'form', fields: pairsOf(mutated) };
    else draft.body = { kind: 'json', value: mutated };
  },
};

const malformedJson: Generator = {
  name: 'malformed-json',
  weight: 2,
  applies: (t) => jsonBody(t) || t.body === 'params',
  apply(ctx, draft) {
    setText(draft, malformed(ctx.rand, bodyText(draft)));
  },
};

const deepNesting: Generator = {
  name: 'deep-nesting',
  weight: 1,
  applies: jsonBody,
  apply(ctx, draft) {
    const { rand } = ctx;
    // Up to what the body limit lets through (two or three bytes a level), sometimes past it.
    const depth = rand.pick([64, 500, 2_000, 10_000, 50_000, rand.int(1, Math.floor(ctx.target.limit / 3))]);
    setText(draft, deepNested(rand, bodyValue(draft), depth));
  },
};

const hugeValues: Generator = {
  name: 'huge',
  weight: 1,
  applies: (t) => hasBody(t),
  apply(ctx, draft) {
    const { rand, target } = ctx;
    const bytes = rand.chance(0.8)
      ? rand.size(64 * 1024) + 1
      : rand.int(target.limit - 4096, target.limit - 10);
    if (draft.body?.kind === 'form') {
      const fields = [...draft.body.fields];
      const key = fields.length > 0 && rand.chance(0.7) ? rand.pick(fields)[0] : randomKey(rand);
      if (rand.chance(0.5)) fields.push([key, 'x'.repeat(Math.min(bytes, target.limit - 200))]);
      else for (let i = 0; i < Math.min(bytes / 8, 5000); i++) fields.push([`${key}${i % 7}`, String(i)]);
      draft.body = { kind: 'form', fields };
      return;
    }
    setText(draft, huge(rand, bodyValue(draft), bytes));
  },
};

const oversized: Generator = {
  name: 'oversized-body',
  weight: 0.3,
  applies: () => true,
  apply(ctx, draft) {
    const { rand, target } = ctx;
    const size = rand.pick([
      target.limit + 1,
      target.limit + rand.int(2, 4096),
      target.limit * rand.int(2, 4),
      8 * target.limit + 1,
    ]);
    const kind = rand.int(0, 2);
    if (kind === 0) setText(draft, JSON.stringify({ a: 'x'.repeat(size) }));
    else if (kind === 1) draft.body = { kind: 'bytes', bytes: Buffer.alloc(size, 0x61) };
    else {
      // Chunked, with no Content-Length to refuse it by: the limit must hold while reading.
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const parts: Buffer[] = [];
      for (let sent = 0; sent < size; sent += chunk.length)
        parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
      parts.push(Buffer.from('0\r\n\r\n'));
      draft.body = { kind: 'bytes', bytes: Buffer.concat(parts) };
      draft.headers.push(['Transfer-Encoding', 'chunked']);
      draft.contentType = 'application/json';
    }
    draft.oneShot = true;
  },
};

const invalidUtf8: Generator = {
  name: 'invalid-utf8',
  weight: 1.5,
  applies: () => true,
  apply(ctx, draft) {
    const { rand } = ctx;
    const where =
      draft.body !== undefined && rand.chance(0.6)
        ? 'body'
        : rand.pick(['path', 'query', 'header', 'query-escaped']);
    if (where === 'body') {
      if (draft.body?.kind === 'form') {
        const text = draft.body.fields.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
        const at = rand.int(0, text.length);
        const bytes = Buffer.concat([
          Buffer.from(text.slice(0, at)),
          badUtf8(rand),
          Buffer.from(text.slice(at)),
        ]);
        draft.body = { kind: 'bytes', bytes };
        draft.contentType = 'application/x-www-form-urlencoded';
        if (rand.chance(0.5)) {
          // The same bytes percent-encoded: they decode to what is not UTF-8.
          draft.body = {
            kind: 'bytes',
            bytes: Buffer.from(
              `${text}&${randomKey(rand)}=${[...badUtf8(rand)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')}`,
            ),
          };
        }
        return;
      }
      draft.body = { kind: 'bytes', bytes: withBadUtf8(rand, bodyText(draft)) };
      return;
    }
    const raw = badUtf8(rand).toString('latin1');
    const escaped = [...badUtf8(rand)]
      .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
    if (where === 'path')
      draft.path = rand.chance(0.5)
        ? `${draft.path}${escaped}`
        : draft.path.replace(/\/([^/]*)$/, `/$1${rand.chance(0.5) ? raw : escaped}`);
    else if (where === 'query')
      draft.rawQuery = `${draft.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}&a=${raw}`;
    else if (where === 'query-escaped') {
      const key = rand.pick(draft.query.map(([k]) => k).concat('x'));
      draft.rawQuery = `${draft.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}&${encode(key)}=${escaped}`;
    } else
      draft.headers.push([
        rand.pick([
          'X-Fuzz',
          'User-Agent',
          'Accept-Language',
          'Origin',
          'Authorization',
          'Cookie',
          'MCP-Protocol-Version',
          'A2A-Version',
        ]),
        `a${raw}b`,
      ]);
    draft.oneShot = true;
  },
};

const HEADER_NAMES = [
  'Authorization',
  'Content-Type',
  'Content-Length',
  'Host',
  'Cookie',
  'Origin',
  'Accept',
  'Transfer-Encoding',
  'MCP-Protocol-Version',
  'A2A-Version',
  'Sec-Fetch-Site',
  'X-CSRF-Token',
  'Expect',
  'Connection',
  'Upgrade',
  'X-Forwarded-For',
  'Accept-Encoding',
];

const headerInjection: Generator = {
  name: 'header-injection',
  weight: 1.5,
  applies: () => true,
  apply(ctx, draft) {
    const { rand, fx } = ctx;
    draft.oneShot = true;
    const name = rand.pick(HEADER_NAMES);
    switch (rand.int(0, 9)) {
      case 0:
        // CR/LF inside a value: a second header (or a second request) smuggled in.
        draft.headers.push([
          name,
          `x\r\n${rand.pick(['Authorization: Bearer x', 'Content-Length: 0', 'X-Injected: 1', ''])}`,
        ]);
        break;
      case 1:
        draft.headers.push([name, `x${rand.pick(['\n', '\r', '\u0000', '\u000b', '\u007f'])}y`]);
        break;
      case 2:
        draft.headers.push([
          `X-${'A'.repeat(rand.pick([100, 8_000]))}`,
          'y'.repeat(rand.pick([10, 20_000, 70_000])),
        ]);
        break;
      case 3:
        for (let i = 0; i < rand.pick([50, 200, 2_000]); i++) draft.headers.push([`X-Many-${i}`, String(i)]);
        break;
      case 4: {
        // The same header twice: two tokens, two content types, two origins, two cookies.
        // Spare tokens where the request ends or deletes what its token acts under (draft.ts).
        const risky = ctx.ends || ctx.destructive || ctx.target.ends || ctx.target.destructive;
        const names = risky
          ? ['spare-subject', 'grant-spare', 'mcp-spare']
          : ['subject', 'grant-reader', 'mcp-reader'];
        const token = fx.credentials.get(rand.pick(names))?.headers[0]?.[1] ?? 'Bearer x';
        const pair = rand.pick<[string, string]>([
          ['Authorization', token],
          ['Content-Type', rand.pick(['application/json', 'text/plain'])],
          ['Origin', 'https://evil.example'],
          ['cookie', 'ppx_session=forged'],
          ['Host', 'evil.example'],
          ['MCP-Protocol-Version', '2024-11-05'],
          ['X-CSRF-Token', 'forged'],
        ]);
        draft.headers.push(pair);
        break;
      }
      case 5: {
        // Framing the body oddly (request smuggling): Node must refuse it, or read it as one body.
        // The length declared is never more than what is sent, or the server would rightly wait.
        const text = draft.body ? renderedBody(draft) : '{}';
        const n = Buffer.byteLength(text);
        const framing = rand.pick<[string, string][]>([
          [
            ['Content-Length', String(n)],
            ['Content-Length', String(n + 1)],
          ],
          [['Content-Length', `${n}, ${n}`]],
          [['Content-Length', ` ${n} `]],
          [['Content-Length', `+${n}`]],
          [['Content-Length', `0${n}`]],
          [['Content-Length', String(Math.max(0, n - 1))]],
          [['Content-Length', rand.pick(['-1', 'abc', '1e3', '0x10', '99999999999999999999', ''])]],
          [
            ['Transfer-Encoding', 'chunked'],
            ['Content-Length', String(n)],
          ],
          [['Transfer-Encoding', 'chunked, identity']],
          [['Transfer-Encoding', rand.pick(['gzip', 'identity', 'xchunked', 'chunked '])]],
          [
            ['Transfer-Encoding', 'chunked'],
            ['Transfer-Encoding', 'chunked'],
          ],
        ]);
        draft.headers.push(...framing);
        draft.body = { kind: 'bytes', bytes: Buffer.from(text) };
        if (framing.some(([k, v]) => k === 'Transfer-Encoding' && v === 'chunked') && framing.length === 1) {
          draft.body = { kind: 'bytes', bytes: Buffer.from(`${n.toString(16)}\r\n${text}\r\n0\r\n\r\n`) };
        }
        draft.autoLength = false;
        break;
      }
      case 6:
        // obs-fold (RFC 9112 §5.2) and a header name with what a name may not hold.
        draft.headers.push(
          rand.pick<[string, string]>([
            ['X-Folded', 'a\r\n b'],
            ['Bad Name', 'x'],
            ['Bad:Name', 'x'],
            ['', 'x'],
            ['X-Tab\t', 'x'],
            ['Ünicode', 'x'],
          ]),
        );
        break;
      case 7:
        draft.headers.push(['Expect', rand.pick(['100-continue', 'bogus', '100-continue, x'])]);
        break;
      case 8:
        draft.headers.push([
          rand.pick([
            'Origin',
            'Sec-Fetch-Site',
            'X-Forwarded-Host',
            'Forwarded',
            'Accept',
            'Accept-Language',
          ]),
          randomString(rand, 200).replace(/[\r\n]/g, ''),
        ]);
        break;
      default:
        draft.headers.push(
          ['Connection', rand.pick(['close', 'keep-alive, Upgrade', 'Upgrade'])],
          ['Upgrade', rand.pick(['websocket', 'h2c', 'x'])],
        );
    }
  },
};

const contentTypes: Generator = {
  name: 'content-type',
  weight: 1,
  applies: hasBody,
  apply(ctx, draft) {
    const { rand } = ctx;
    draft.contentType = rand.pick<string | null>([
      null,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/JSON',
      'application/vnd.api+json',
      'application/jsonx',
      'application/json;;;',
      'application/json; boundary="',
      '*/*',
      'json',
      '',
      `application/json; ${'p=v; '.repeat(500)}`,
    ]);
    if (draft.contentType?.startsWith('multipart') && rand.chance(0.5)) {
      const boundary = 'x';
      draft.body = {
        kind: 'bytes',
        bytes: Buffer.from(
          rand.pick([
            `--${boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\nx\r\n--${boundary}--\r\n`,
            `--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${'z'.repeat(1000)}\r\n--${boundary}--\r\n`,
            `--${boundary}\r\nno headers\r\n`,
            `--${boundary}--`,
            `--y\r\n\r\n`,
          ]),
        ),
      };
    }
  },
};

const badJwt: Generator = {
  name: 'bad-jwt',
  weight: 2.5,
  applies: bearer,
  apply(ctx, draft) {
    const { rand, fx, target } = ctx;
    const bearers = target.credentials.filter(([c]) => fx.tokens.has(c)).map(([c]) => c);
    let name = rand.pick(bearers.length > 0 ? bearers : ['subject']);
    // Some flaws leave the token genuine (a lower-case `bearer`, a future `iat`): what ends or
    // deletes what it acts under forges from a spare token, as draft.ts picks for it.
    if (ctx.ends || target.ends) name = SPARE_TOKEN[name] ?? name;
    if ((ctx.destructive || target.destructive) && name === 'subject') name = 'spare-subject';
    const from = fx.tokens.get(name)!;
    const flaw = rand.pick(JWT_FLAWS);
    const { authorization } = fx.forge.forge(rand, from, flaw);
    draft.credential = 'none';
    draft.headers.push(['Authorization', authorization]);
    if (/[^\x20-\x7e]/.test(authorization)) draft.oneShot = true;
    ctx.note = flaw;
  },
};

const queryJunk: Generator = {
  name: 'query',
  weight: 1.5,
  applies: () => true,
  apply(ctx, draft) {
    const { rand } = ctx;
    switch (rand.int(0, 6)) {
      case 0:
        draft.rawQuery = rand.pick([
          '%',
          '%%',
          '%zz',
          '%u0041',
          '&&&',
          '=',
          '==&=',
          '?',
          '#frag',
          ';a=b',
          'a[]=1&a[x]=2',
          'a=1&a=2&a=3',
          '+=+',
          'a=%00',
        ]);
        break;
      case 1:
        draft.query.push([randomKey(rand), randomString(rand, 60)]);
        break;
      case 2: {
        const key = draft.query.length > 0 ? rand.pick(draft.query)[0] : 'limit';
        for (let i = 0; i < rand.pick([2, 50, 1_000]); i++) draft.query.push([key, String(i)]);
        break;
      }
      case 3:
        draft.query.push([
          rand.pick([
            'limit',
            'cursor',
            'since',
            'until',
            'action',
            'grant_id',
            'return_to',
            'id',
            'status',
            'namespace',
            'from',
            'to',
          ]),
          String(
            rand.pick<Json>([
              randomNumber(rand),
              randomString(rand),
              '-1',
              '1e309',
              'NaN',
              '0x10',
              '99999999999999999999',
              '',
            ]),
          ),
        ]);
        break;
      case 4:
        draft.query.push(['x', 'y'.repeat(rand.pick([1_000, 7_000, 15_000]))]);
        break;
      case 5:
        if (ctx.target.query) draft.query = pairsOf(wrongType(rand, sample(ctx, ctx.target.query)));
        else draft.query.push(['__proto__', 'x'], ['constructor', 'y']);
        break;
      default:
        draft.rawQuery = Array.from(
          { length: rand.int(1, 8) },
          () => `${encode(randomKey(rand))}=${encode(String(randomJson(rand, 0)))}`,
        ).join('&');
    }
  },
};

const pathJunk: Generator = {
  name: 'path',
  weight: 1.5,
  applies: () => true,
  apply(ctx, draft) {
    const { rand } = ctx;
    const p = draft.path;
    draft.path = rand.pick([
      `${p}/`,
      `${p}//`,
      `/${p}`,
      p.toUpperCase(),
      `${p}/..`,
      `${p}/../..${p}`,
      `${p}/%2e%2e/%2e%2e/etc/passwd`,
      `${p}%2F`,
      `${p}%00`,
      `${p};x=1`,
      `${p}/${encode(randomString(rand, 40)) || 'x'}`,
      `${p}/${'a'.repeat(rand.pick([300, 5_000, 12_000]))}`,
      p.replace(/\/[^/]*$/, `/${encode(randomString(rand, 30)) || '%20'}`),
      p.replace(/\/[^/]*$/, '/%'),
      p.replace(/\/[^/]*$/, '/%zz'),
      `http://${new URL(ctx.fx.base).host}${p}`,
      `http://evil.example${p}`,
      '*',
      p.replace(/^\//, ''),
      `${p}#x`,
      `${p}\\..\\x`,
    ]);
    draft.oneShot = true;
  },
};

const METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'TRACE',
  'CONNECT',
  'PROPFIND',
  'FUZZ',
  'get',
  'Post',
];

const methodJunk: Generator = {
  name: 'method',
  weight: 0.7,
  applies: () => true,
  apply(ctx, draft) {
    draft.method = ctx.rand.pick(METHODS.filter((m) => m !== draft.method));
    if (draft.method === 'CONNECT' || draft.method === 'TRACE') draft.oneShot = true;
    if (draft.method === 'OPTIONS' && ctx.rand.chance(0.5)) {
      draft.headers.push(
        ['Origin', 'https://app.example'],
        ['Access-Control-Request-Method', 'POST'],
        ['Access-Control-Request-Headers', 'authorization, content-type'],
      );
    }
  },
};

const slowBody: Generator = {
  name: 'slow-body',
  weight: 0.03,
  applies: () => true,
  apply(ctx, draft) {
    const { rand } = ctx;
    if (draft.body === undefined) draft.body = { kind: 'json', value: {} };
    draft.delivery = { kind: 'slow', pieces: rand.int(2, 12), pauseMs: rand.int(20, 150) };
  },
};

const abortedUpload: Generator = {
  name: 'aborted-upload',
  weight: 0.06,
  applies: () => true,
  apply(ctx, draft) {
    const { rand } = ctx;
    if (draft.body === undefined) draft.body = { kind: 'json', value: randomJson(rand, 2) };
    // Somewhere in the head, or in the body (the head complete, the body short of its length).
    draft.delivery = { kind: 'abort', keepBytes: rand.chance(0.2) ? rand.int(1, 60) : rand.int(60, 4_000) };
  },
};

const JSON_RPC_IDS: readonly Json[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 53 + 1,
  1e308,
  '',
  'x'.repeat(5_000),
  [],
  {},
  true,
  [1],
  { id: 1 },
];

const jsonRpc: Generator = {
  name: 'json-rpc',
  weight: 4,
  applies: (t) => t.body === 'mcp' || t.body === 'a2a',
  apply(ctx, draft) {
    const { rand } = ctx;
    const envelope = bodyValue(draft) as Record<string, Json>;
    let out: Json;
    switch (rand.int(0, 9)) {
      case 0:
        out = { ...envelope, id: rand.pick(JSON_RPC_IDS) };
        break;
      case 1:
        out = { ...envelope, jsonrpc: rand.pick<Json>(['1.0', '2', 2, null, '2.0 ', '']) };
        break;
      case 2: {
        const { jsonrpc: _j, ...rest } = envelope;
        const drop = rand.pick(['jsonrpc', 'method', 'id', 'params']);
        out =
          drop === 'jsonrpc'
            ? rest
            : (Object.fromEntries(Object.entries(envelope).filter(([k]) => k !== drop)) as Json);
        break;
      }
      case 3:
        out = {
          ...envelope,
          method: rand.pick<Json>([
            randomString(rand, 30),
            'rpc.discover',
            'tools/call ',
            'TOOLS/CALL',
            '',
            1,
            null,
            ['tools/list'],
            '__proto__',
            'constructor',
          ]),
        };
        break;
      case 4:
        out = {
          ...envelope,
          params: rand.pick<Json>([null, [], 'x', 1, [envelope['params'] ?? null], randomJson(rand, 3)]),
        };
        break;
      case 5:
        // Batches: empty, mixed, long, nested.
        out = rand.pick<Json>([
          [],
          [envelope],
          [envelope, envelope],
          [1, 2],
          [[envelope]],
          Array.from({ length: rand.pick([10, 100]) }, () => envelope),
        ]);
        break;
      case 6:
        // A response (or an error) where a request belongs.
        out = rand.pick<Json>([
          { jsonrpc: '2.0', id: 1, result: {} },
          { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'x' } },
          { jsonrpc: '2.0', id: 1, result: {}, error: {} },
        ]);
        break;
      case 7: {
        const params = (envelope['params'] ?? {}) as Json;
        out = { ...envelope, params: wrongType(rand, params) };
        break;
      }
      case 8:
        out = { ...envelope, [randomKey(rand)]: randomJson(rand, 2) };
        break;
      default: {
        // tools/call or a skill with arguments of any shape.
        const name =
          (envelope['params'] as Record<string, Json> | undefined)?.['name'] ?? 'ppx_get_effective_profile';
        out =
          ctx.target.body === 'mcp'
            ? {
                ...envelope,
                method: 'tools/call',
                params: {
                  name,
                  arguments: rand.pick<Json>([
                    randomJson(rand, 3),
                    null,
                    [],
                    'x',
                    { grant_id: rand.pick<Json>([1, [], ['a', 'b', 'c'], '', 'x'.repeat(400)]) },
                  ]),
                },
              }
            : {
                ...envelope,
                params: {
                  message: rand.pick<Json>([
                    randomJson(rand, 3),
                    { parts: randomJson(rand, 2) },
                    { role: 'ROLE_USER', parts: [{ data: randomJson(rand, 3) }] },
                    { kind: 'message', parts: [{ kind: 'data', data: null }] },
                  ]),
                },
              };
      }
    }
    draft.body = { kind: 'json', value: out };
  },
};

const runAgentInput: Generator = {
  name: 'run-agent-input',
  weight: 4,
  applies: (t) => t.body === 'agui',
  apply(ctx, draft) {
    const { rand } = ctx;
    const input = { ...(bodyValue(draft) as Record<string, Json>) };
    const props = { ...((input['forwardedProps'] as Record<string, Json> | undefined) ?? {}) };
    switch (rand.int(0, 9)) {
      case 0:
        delete input[
          rand.pick(['threadId', 'runId', 'messages', 'tools', 'context', 'state', 'forwardedProps'])
        ];
        break;
      case 1:
        input[rand.pick(['threadId', 'runId'])] = rand.pick<Json>([1, null, '', 'x'.repeat(10_000), [], {}]);
        break;
      case 2:
        input['messages'] = rand.pick<Json>([
          'x',
          [null],
          [{ role: 'wizard', content: 'x' }],
          [{ id: 'm', role: 'user' }],
          [
            {
              id: 'm',
              role: 'assistant',
              toolCalls: [{ id: 't', type: 'function', function: { name: 'x', arguments: '{' } }],
            },
          ],
          [{ id: 'm', role: 'tool', content: 'x' }],
          Array.from({ length: 500 }, (_, i) => ({ id: `m${i}`, role: 'user', content: 'hi' })),
        ]);
        break;
      case 3:
        input['tools'] = rand.pick<Json>([
          [{ name: 'x' }],
          [{ name: 'x', description: 'y', parameters: randomJson(rand, 3) }],
          'x',
          [1],
        ]);
        break;
      case 4:
        input['state'] = rand.pick<Json>([
          randomJson(rand, 4),
          'x'.repeat(50_000),
          { seq: -1 },
          { seq: 'x', claims: 1 },
        ]);
        break;
      case 5:
        input['forwardedProps'] = rand.pick<Json>([
          null,
          'x',
          [],
          1,
          { follow: 'no' },
          { since: -5 },
          { since: 1e300 },
          { since: 0.5 },
          { actions: 'x' },
          { actions: Array.from({ length: 21 }, () => ({ name: 'list_consent_grants' })) },
          { explain: [{}] },
          { explain: [{ claim_id: 1 }] },
        ]);
        break;
      case 6:
        props['actions'] = [
          {
            name: rand.pick(['approve_grant_request', 'revoke_consent_grant', 'confirm_updates', 'x', '']),
            arguments: randomJson(rand, 3) as Json,
          },
        ];
        input['forwardedProps'] = { ...props, follow: false };
        break;
      case 7:
        input['resume'] = rand.pick<Json>([
          'x',
          [{}],
          [{ interruptId: 1, status: 'resolved' }],
          [{ interruptId: 'x', status: 'resolved', payload: randomJson(rand, 3) }],
          [
            {
              interruptId: rand.pick(ctx.fx.words('grant_request_id') ?? ['x']),
              status: 'resolved',
              payload: { action: 'edit', grant: randomJson(rand, 3) },
            },
          ],
          Array.from({ length: 50 }, () => ({ interruptId: 'x', status: 'cancelled' })),
        ]);
        break;
      case 8:
        input['context'] = rand.pick<Json>([
          [{ description: 1, value: 'x' }],
          'x',
          [{ description: 'd', value: randomJson(rand, 2) }],
        ]);
        break;
      default:
        input[randomKey(rand)] = randomJson(rand, 2);
    }
    draft.body = { kind: 'json', value: input };
  },
};

const formJunk: Generator = {
  name: 'form',
  weight: 2,
  applies: (t) => t.body === 'form' || t.body === 'params',
  apply(ctx, draft) {
    const { rand } = ctx;
    const fields = draft.body?.kind === 'form' ? [...draft.body.fields] : [];
    const text = fields.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
    const key = fields.length > 0 ? rand.pick(fields)[0] : 'csrf';
    const bytes = rand.pick([
      `${text}&${key}=again`,
      `${text}&${encode(key)}`,
      `${text}&=x`,
      `${text}&&&`,
      `${text}&${key}=%`,
      `${text}&${key}=%zz%`,
      `${text}&${key}[]=1&${key}[x]=2`,
      `${text}&__proto__=x&constructor=y&hasOwnProperty=z`,
      text.replace(/%20/g, '+').replace(/=/g, '=='),
      `${text}&${key}=${'%41'.repeat(5_000)}`,
      Array.from({ length: 3_000 }, (_, i) => `k${i}=${i}`).join('&'),
      `${text};${key}=semi`,
      `\u0000${text}`,
    ]);
    draft.body = { kind: 'bytes', bytes: Buffer.from(bytes, 'utf8') };
    draft.contentType = 'application/x-www-form-urlencoded';
  },
};

export const GENERATORS: readonly Generator[] = [
  valid,
  wrongTypes,
  malformedJson,
  deepNesting,
  hugeValues,
  oversized,
  invalidUtf8,
  headerInjection,
  contentTypes,
  badJwt,
  queryJunk,
  pathJunk,
  methodJunk,
  slowBody,
  abortedUpload,
  jsonRpc,
  runAgentInput,
  formJunk,
];
