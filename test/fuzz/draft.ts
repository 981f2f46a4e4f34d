import { randomUUID } from 'node:crypto';
import type { Fixtures } from './fixtures.ts';
import type { Rand } from './rand.ts';
import { type JsonSchema, type SchemaContext, shaped, type Words } from './schema-values.ts';
import { A2A_SKILLS, AGUI_ACTIONS, type Target } from './targets.ts';
import { type Json, randomJson, randomString, textOf } from './values.ts';
import type { Delivery, RawRequest } from './wire.ts';

// A request before it becomes bytes: what a well-behaved client of the target would send (a
// valid body shaped by the target's schema, the right headers, a genuine credential), which the
// generators (generators.ts) then break in one way each. `render` turns it into bytes.

export type Body =
  | { readonly kind: 'json'; readonly value: Json }
  /** JSON text (or what was JSON text), sent as it is. */
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Buffer }
  | { readonly kind: 'form'; readonly fields: readonly (readonly [string, string])[] };

export interface Draft {
  method: string;
  /** The path as sent (already percent-encoded where it must be). */
  path: string;
  query: [string, string][];
  /** Sent instead of `query` when set (raw, as generated). */
  rawQuery?: string;
  headers: [string, string][];
  body?: Body;
  /** The Content-Type to send; `null` sends none. Undefined: the body's own. */
  contentType?: string | null;
  credential: string;
  delivery?: Delivery;
  oneShot?: boolean;
  autoLength?: boolean;
}

export interface DraftContext {
  readonly rand: Rand;
  readonly fx: Fixtures;
  readonly target: Target;
  /** Set while building when the request turned out to delete the owner's data. */
  destructive: boolean;
  /** Set while building when the request ends what it names (a revocation tool or action). */
  ends?: boolean;
  /** A detail for the report (which JWT flaw). */
  note?: string;
}

export function wordsFor(ctx: DraftContext, ends = ctx.target.ends === true): Words {
  return ends ? ctx.fx.spareWords : ctx.fx.words;
}

export function schemaContext(ctx: DraftContext, root: JsonSchema, words = wordsFor(ctx)): SchemaContext {
  return { rand: ctx.rand, words, root, examples: ctx.fx.examples };
}

/** A value for `schema` with the target's words. */
export function sample(ctx: DraftContext, schema: JsonSchema, words?: Words): Json {
  return shaped(schema, schemaContext(ctx, schema, words));
}

/** Percent-encoding that takes any string (a lone surrogate is sent as U+FFFD). */
export const encode = (s: string) => encodeURIComponent(s.toWellFormed());

/** The path with its `:params` filled (and `*` in /app/*). */
function pathOf(ctx: DraftContext): string {
  const { rand, fx, target } = ctx;
  return target.route
    .replace(/:(\w+)/g, (_, name: string) => {
      const words =
        name === 'id' ? fx.words('grant_request_id') : name === 'name' ? fx.assets : fx.words(name);
      const value = words && rand.chance(0.8) ? rand.pick(words) : randomString(rand, 30);
      return encode(value);
    })
    .replace('*', () => encode(randomString(rand, 20)) || 'x');
}

/** Query pairs from an object value (arrays repeat the key; others as JSON text when not strings). */
export function pairsOf(value: Json): [string, string][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(value)) {
    if (Array.isArray(v)) for (const x of v) out.push([k, typeof x === 'string' ? x : JSON.stringify(x)]);
    else if (v !== null && typeof v === 'object') out.push([k, JSON.stringify(v)]);
    else out.push([k, String(v)]);
  }
  return out;
}

/** The spare credential that takes a main one's place in a request that ends what it acts under. */
export const SPARE_TOKEN: Readonly<Record<string, string>> = {
  'grant-reader': 'grant-spare',
  'grant-writer': 'grant-spare',
  'grant-exporter': 'grant-spare',
  'grant-matcher': 'grant-spare',
  'grant-travel': 'grant-spare',
  'mcp-reader': 'mcp-spare',
  'mcp-writer': 'mcp-spare',
  'mcp-package': 'mcp-spare-package',
};

function pickCredential(ctx: DraftContext): string {
  return ctx.rand.weighted(ctx.target.credentials);
}

/** What a careful client of `target` would send. */
export function baseDraft(ctx: DraftContext): Draft {
  const { rand, target } = ctx;
  const draft: Draft = {
    method: target.method,
    path: pathOf(ctx),
    query: target.query ? pairsOf(sample(ctx, target.query)) : [],
    headers: [],
    credential: pickCredential(ctx),
  };
  switch (target.body) {
    case 'none':
      break;
    case 'json':
      // A web page's JSON request (passkeys) takes its CSRF token as a form does.
      if (target.csrf !== undefined) formBody(ctx, draft, 'json');
      else
        draft.body = { kind: 'json', value: target.schema ? sample(ctx, target.schema) : randomJson(rand) };
      break;
    case 'params':
      paramsBody(ctx, draft);
      break;
    case 'form':
      formBody(ctx, draft);
      break;
    case 'mcp':
      mcpBody(ctx, draft);
      break;
    case 'a2a':
      a2aBody(ctx, draft);
      break;
    case 'agui':
      aguiBody(ctx, draft);
      break;
  }
  if (ctx.destructive || target.destructive) {
    if (draft.credential === 'subject' || draft.credential.startsWith('session'))
      draft.credential = 'spare-subject';
  }
  // A grantee may end its own grant: what revokes runs under a spare grant's token.
  if (ctx.ends || target.ends) draft.credential = SPARE_TOKEN[draft.credential] ?? draft.credential;
  return draft;
}

/** OAuth parameters: a form (RFC 6749 §3.2) mostly, a JSON object sometimes; client auth by Basic or body. */
function paramsBody(ctx: DraftContext, draft: Draft): void {
  const { rand, fx } = ctx;
  const value = sample(ctx, ctx.target.schema ?? {}) as Record<string, Json>;
  if (rand.chance(0.3)) {
    value['client_id'] = fx.confidential.client_id;
    value['client_secret'] = fx.confidential.secret;
  }
  const fields = pairsOf(value);
  if (rand.chance(0.2) && value['client_id'] !== undefined) {
    const id = textOf(value['client_id']);
    const secret = textOf(value['client_secret'] ?? '');
    draft.headers.push([
      'Authorization',
      `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`,
    ]);
    draft.body = { kind: 'form', fields: fields.filter(([k]) => k !== 'client_secret') };
    draft.credential = 'none';
    return;
  }
  if (rand.chance(0.2)) {
    draft.body = { kind: 'json', value: Object.fromEntries(fields) };
    return;
  }
  draft.body = { kind: 'form', fields };
}

/**
 * A web form: the session's CSRF token (or the pre-session pair: cookie and field), the
 * same-origin Origin; sent form-encoded, or as a JSON object for a page's JSON request.
 */
function formBody(ctx: DraftContext, draft: Draft, as: 'form' | 'json' = 'form'): void {
  const { rand, fx, target } = ctx;
  const value = sample(ctx, target.schema ?? {}) as Record<string, Json>;
  if (target.csrf === 'session') {
    if (rand.chance(0.85)) {
      value['csrf'] = draft.credential === 'spare-session' ? fx.spareSession.csrf : fx.session.csrf;
    }
  } else if (target.csrf === 'pre-session' && rand.chance(0.05)) {
    // A matching pair gets past the CSRF check to the password check (scrypt): rarely.
    const csrf = randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', '').slice(0, 11);
    value['csrf'] = csrf;
    draft.headers.push(['Cookie', `ppx_csrf=${csrf}`]);
    draft.credential = 'none';
  }
  if (rand.chance(0.85)) draft.headers.push(['Origin', new URL(fx.base).origin]);
  draft.body = as === 'json' ? { kind: 'json', value } : { kind: 'form', fields: pairsOf(value) };
}

const MCP_METHODS: readonly (readonly [string, number])[] = [
  ['tools/call', 10],
  ['tools/list', 1],
  ['initialize', 1.5],
  ['ping', 0.5],
  ['resources/list', 0.7],
  ['resources/templates/list', 0.3],
  ['resources/read', 1.5],
  ['prompts/list', 0.2],
  ['prompts/get', 0.2],
  ['completion/complete', 0.2],
  ['logging/setLevel', 0.2],
  ['notifications/initialized', 0.3],
  ['notifications/cancelled', 0.2],
  ['tasks/get', 0.1],
  ['sampling/createMessage', 0.1],
];

function mcpBody(ctx: DraftContext, draft: Draft): void {
  const { rand, fx } = ctx;
  const method = rand.weighted(MCP_METHODS);
  let params: Json | undefined;
  if (method === 'tools/call') {
    const tool = fx.tools.length > 0 ? rand.pick(fx.tools) : undefined;
    const name = tool?.name ?? 'ppx_get_profile_summary';
    const ends = name === 'ppx_revoke_consent_grant';
    if (ends) ctx.ends = true;
    const schema = (tool?.inputSchema ?? { type: 'object' }) as JsonSchema;
    // The token that may call the tool, mostly (a write needs the writer's grant).
    if (draft.credential.startsWith('mcp-') && rand.chance(0.6)) {
      draft.credential = /propose|confirm/.test(name)
        ? 'mcp-writer'
        : rand.pick(['mcp-reader', 'mcp-package']);
    }
    const args = sample(ctx, schema, wordsFor(ctx, ends)) as Record<string, Json>;
    // grant_id as such a client sends it: a package's child, or nothing (or its own) with one grant.
    const own = fx.grantsOf.get(
      SPARE_TOKEN[draft.credential] && ends ? SPARE_TOKEN[draft.credential]! : draft.credential,
    );
    if (own && typeof args === 'object' && args !== null && rand.chance(0.8)) {
      const pkg = draft.credential.endsWith('package');
      if (pkg) args['grant_id'] = rand.chance(0.15) ? own.slice(0, 2) : rand.pick(own);
      else if (rand.chance(0.7)) delete args['grant_id'];
      else args['grant_id'] = rand.pick(own);
    }
    params = { name, arguments: args };
  } else if (method === 'initialize') {
    params = {
      protocolVersion: rand.pick(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01']),
      capabilities: rand.chance(0.8) ? {} : (randomJson(rand, 2) as Json),
      clientInfo: { name: 'fuzz', version: '1' },
    };
  } else if (method === 'resources/read') {
    const uris = fx.resourceUris;
    const uri =
      uris.length > 0 && rand.chance(0.7)
        ? rand.pick(uris)
        : `ppx://profile/${randomString(rand, 20)}/summary`;
    params = {
      uri: rand.chance(0.3)
        ? `${uri}${uri.includes('?') ? '&' : '?'}context=${encode(randomString(rand, 20))}`
        : uri,
    };
  } else if (method === 'logging/setLevel') {
    params = { level: rand.pick(['debug', 'info', 'emergency', 'x']) };
  } else if (method === 'notifications/cancelled') {
    params = { requestId: rand.int(0, 10), reason: 'fuzz' };
  } else if (rand.chance(0.3)) {
    params = {};
  }
  const notification = method.startsWith('notifications/');
  draft.body = {
    kind: 'json',
    value: {
      jsonrpc: '2.0',
      ...(notification ? {} : { id: rand.chance(0.7) ? rand.int(1, 1000) : `req-${rand.int(0, 99)}` }),
      method,
      ...(params !== undefined ? { params } : {}),
    },
  };
  draft.headers.push([
    'Accept',
    rand.chance(0.95)
      ? 'application/json, text/event-stream'
      : rand.pick(['application/json', 'text/event-stream', '*/*', 'text/html']),
  ]);
  if (rand.chance(0.8))
    draft.headers.push([
      'MCP-Protocol-Version',
      rand.chance(0.9) ? '2025-11-25' : rand.pick(['2025-06-18', '2024-11-05', 'x', '']),
    ]);
}

const A2A_METHODS: readonly (readonly [string, number, 'v1' | 'v03' | 'literal'])[] = [
  ['SendMessage', 8, 'v1'],
  ['message/send', 5, 'v03'],
  ['SendStreamingMessage', 1, 'v1'],
  ['message/stream', 0.7, 'v03'],
  ['GetTask', 1.5, 'v1'],
  ['tasks/get', 1, 'v03'],
  ['CancelTask', 0.5, 'v1'],
  ['tasks/cancel', 0.3, 'v03'],
  ['ListTasks', 0.7, 'v1'],
  ['SubscribeToTask', 0.3, 'v1'],
  ['tasks/resubscribe', 0.2, 'v03'],
  ['GetExtendedAgentCard', 0.2, 'v1'],
  ['literal', 4, 'literal'],
];

function a2aBody(ctx: DraftContext, draft: Draft): void {
  const { rand, fx } = ctx;
  const [method, , version] = rand.weighted(A2A_METHODS.map((m) => [m, m[1]] as const));
  const skill = rand.pick(A2A_SKILLS);
  const skillParams = sample(ctx, skill.schema);
  // The token whose grant allows the skill, mostly.
  if (draft.credential.startsWith('a2a-') && rand.chance(0.7)) {
    draft.credential =
      skill.skill === 'propose_update'
        ? 'a2a-writer'
        : skill.skill === 'compatibility_view'
          ? 'a2a-matcher'
          : 'a2a-reader';
  }
  const taskId = () => (fx.taskIds.length > 0 && rand.chance(0.7) ? rand.pick(fx.taskIds) : randomUUID());
  let params: Json;
  let name = method;
  if (version === 'literal') {
    name = skill.skill;
    params = skillParams;
  } else if (/Message|message\//.test(method)) {
    const data: Json = rand.chance(0.8) ? { method: skill.skill, params: skillParams } : skillParams;
    const metadata: Json | undefined = rand.chance(0.3) ? { skillId: skill.skill } : undefined;
    const message: Json =
      version === 'v1'
        ? {
            messageId: randomUUID(),
            role: rand.chance(0.9) ? 'ROLE_USER' : rand.pick(['ROLE_AGENT', 'user', 'ROLE_UNSPECIFIED']),
            parts: [{ data, mediaType: 'application/json' }],
            ...(metadata ? { metadata } : {}),
          }
        : {
            kind: 'message',
            messageId: randomUUID(),
            role: rand.chance(0.9) ? 'user' : 'agent',
            parts: [{ kind: 'data', data }],
            ...(metadata ? { metadata } : {}),
          };
    params = { message, ...(rand.chance(0.2) ? { configuration: { blocking: rand.chance(0.5) } } : {}) };
  } else if (method === 'ListTasks') {
    params = rand.chance(0.5) ? { pageSize: rand.int(0, 200) } : {};
  } else if (method === 'GetExtendedAgentCard') {
    params = {};
  } else {
    params = version === 'v1' ? { id: taskId() } : { id: taskId() };
  }
  draft.body = {
    kind: 'json',
    value: { jsonrpc: '2.0', id: rand.chance(0.7) ? rand.int(1, 1000) : randomUUID(), method: name, params },
  };
  if (version === 'v1' && rand.chance(0.85))
    draft.headers.push(['A2A-Version', rand.chance(0.95) ? '1.0' : rand.pick(['0.3', '2.0', ''])]);
  if (version === 'v03' && rand.chance(0.1)) draft.headers.push(['A2A-Version', '0.3']);
  if (rand.chance(0.1)) draft.headers.push(['A2A-Extensions', 'https://a2ui.org/a2a-extension/a2ui/v0.8']);
}

function aguiBody(ctx: DraftContext, draft: Draft): void {
  const { rand, fx } = ctx;
  const props: Record<string, Json> = { follow: rand.chance(0.85) ? false : rand.chance(0.5) ? true : 'yes' };
  if (rand.chance(0.15)) props['since'] = rand.pick<Json>([0, rand.int(0, 50), -1, 1.5, 1e20, '3']);
  if (rand.chance(0.3)) {
    const n = rand.int(1, 3);
    props['actions'] = Array.from({ length: n }, () => {
      const action = rand.pick(AGUI_ACTIONS);
      if (action.name.startsWith('delete_')) ctx.destructive = true;
      const ends = action.name === 'revoke_consent_grant';
      if (ends) ctx.ends = true;
      return {
        name: rand.chance(0.95) ? action.name : randomString(rand, 20),
        arguments: sample(ctx, action.schema, wordsFor(ctx, ends)),
      };
    });
  }
  if (rand.chance(0.2)) {
    props['explain'] = Array.from({ length: rand.int(1, 3) }, () =>
      rand.pick<Json>([
        { claim_id: rand.pick(fx.words('claim_id') ?? ['x']) },
        { grant_id: rand.pick(fx.words('grant_id') ?? ['x']) },
        { proposal_id: `ppx:proposal:${randomString(rand, 10)}` },
      ]),
    );
  }
  const value: Record<string, Json> = {
    threadId: rand.chance(0.8) ? `thread-${rand.int(0, 20)}` : randomUUID(),
    runId: randomUUID(),
    messages: rand.chance(0.8) ? [] : [{ id: randomUUID(), role: 'user', content: randomString(rand, 40) }],
    tools: [],
    context: [],
    state: rand.chance(0.7) ? {} : (randomJson(rand, 3) as Json),
    forwardedProps: props,
  };
  if (rand.chance(0.1)) {
    value['resume'] = [
      {
        interruptId: rand.pick([...(fx.words('grant_request_id') ?? []), randomString(rand, 20)]),
        status: rand.pick(['resolved', 'cancelled', 'x']),
        payload: {
          action: rand.pick(['approve', 'edit', 'reject', 'x']),
          ...(rand.chance(0.3) ? { grant: randomJson(rand, 2) } : {}),
        },
      },
    ];
  }
  draft.body = { kind: 'json', value };
  draft.headers.push(['Accept', rand.chance(0.8) ? 'text/event-stream' : 'application/json']);
}

/** The bytes of a draft. */
export function render(draft: Draft, fx: Fixtures): RawRequest {
  const query = draft.rawQuery ?? draft.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  const target = query === '' ? draft.path : `${draft.path}?${query}`;
  const headers: [string, string][] = [];
  const credential = fx.credentials.get(draft.credential);
  if (credential) headers.push(...(credential.headers as [string, string][]));
  let body: Buffer | undefined;
  let type: string | undefined;
  const b = draft.body;
  if (b?.kind === 'json') {
    body = Buffer.from(JSON.stringify(b.value), 'utf8');
    type = 'application/json';
  } else if (b?.kind === 'text') {
    body = Buffer.from(b.text, 'utf8');
    type = 'application/json';
  } else if (b?.kind === 'bytes') {
    body = b.bytes;
    type = 'application/json';
  } else if (b?.kind === 'form') {
    body = Buffer.from(b.fields.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&'), 'utf8');
    type = 'application/x-www-form-urlencoded';
  }
  const contentType = draft.contentType === undefined ? type : draft.contentType;
  if (contentType !== undefined && contentType !== null && body !== undefined)
    headers.push(['Content-Type', contentType]);
  // A cookie from the credential and one from the draft go in one header, as a browser sends them.
  const cookies = [...headers, ...draft.headers].filter(([k]) => k === 'Cookie').map(([, v]) => v);
  const rest = [...headers, ...draft.headers].filter(([k]) => k !== 'Cookie');
  if (cookies.length > 0) rest.push(['Cookie', cookies.join('; ')]);
  return {
    method: draft.method,
    target,
    headers: rest,
    ...(body !== undefined ? { body } : {}),
    ...(draft.delivery ? { delivery: draft.delivery } : {}),
    ...(draft.oneShot ? { oneShot: true } : {}),
    ...(draft.autoLength === false ? { autoLength: false } : {}),
  };
}
