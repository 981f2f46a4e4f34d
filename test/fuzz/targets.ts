import { z } from 'zod';
import { CATALOG } from '../../src/operations/catalog/index.ts';
import { ROUTES } from '../../src/surfaces/http/route.ts';
import type { JsonSchema } from './schema-values.ts';

// Every entry point the server has, as the fuzzer aims at it: the HTTP API's routes (taken from
// the same route table the server mounts), the OAuth endpoints and metadata, /mcp, /a2a, the
// AG-UI review run, the web pages and their forms, health and metrics. `uncovered` compares this
// list with the routes the server's own app lists, so a new route without a target fails the run.

export type Surface = 'http-api' | 'oauth' | 'mcp' | 'a2a' | 'agui' | 'web' | 'meta';

/** What a target's body is. */
export type BodyKind =
  | 'none'
  /** A JSON object shaped by `schema`. */
  | 'json'
  /** OAuth parameters: form-encoded (or a JSON object of strings), shaped by `schema`. */
  | 'params'
  /** A web form (urlencoded, sometimes multipart), shaped by `schema`. */
  | 'form'
  | 'mcp'
  | 'a2a'
  | 'agui';

export interface Target {
  /** `METHOD route`, as reported. */
  readonly name: string;
  readonly method: string;
  /** The route as the server declares it (`:param` segments). */
  readonly route: string;
  readonly surface: Surface;
  readonly body: BodyKind;
  readonly schema?: JsonSchema;
  /** The query parameters, when the route reads them. */
  readonly query?: JsonSchema;
  /** Credentials to send, each with its weight (names of fixtures.ts credentials). */
  readonly credentials: readonly (readonly [string, number])[];
  /** How often the target is chosen, relative to 1. */
  readonly weight: number;
  /** The largest body the route accepts. */
  readonly limit: number;
  /** It ends what it names (a revocation): only spare grants and tokens go in. */
  readonly ends?: true;
  /** It deletes the owner's data: owner credentials become the spare subject's. */
  readonly destructive?: true;
  /** A form that takes the session's CSRF token (`csrf`), or the pre-session one. */
  readonly csrf?: 'session' | 'pre-session';
}

const API_LIMIT = 256 * 1024;
const FORM_LIMIT = 64 * 1024;

/** The grant token whose grant allows an operation (fixtures.ts makes one of each). */
const GRANT_FOR: Readonly<Record<string, string>> = {
  read: 'grant-reader',
  query: 'grant-reader',
  propose_update: 'grant-writer',
  confirm_update: 'grant-writer',
  export: 'grant-exporter',
};

/**
 * Who calls an API route, weighted: mostly whoever may (the owner, or a grant that allows the
 * operation), so that most inputs reach the checks behind authentication; the others, a token for
 * another resource (MCP's), a browser session, nobody, less often.
 */
function apiCredentials(op: (typeof CATALOG)[number]): Target['credentials'] {
  if (op.caller === 'public') return PUBLIC;
  const others: [string, number][] = [
    ['mcp-reader', 0.4],
    ['mcp-package', 0.3],
    ['session', 0.3],
    ['none', 0.8],
  ];
  if (op.grant === undefined) {
    // The owner's operations (some also answer a grantee about its own grant).
    return [['subject', 5], ['grant-reader', 1], ['grant-writer', 0.3], ...others];
  }
  const own =
    op.grant.purposes?.includes('matching') && !op.grant.purposes.includes('recommendation')
      ? 'grant-matcher'
      : (GRANT_FOR[op.grant.operation] ?? 'grant-reader');
  const rest = ['grant-reader', 'grant-writer', 'grant-exporter', 'grant-matcher', 'grant-travel'].filter(
    (g) => g !== own,
  );
  return [[own, 4], ['subject', 2], ...rest.map((g): [string, number] => [g, 0.4]), ...others];
}
const PUBLIC = [
  ['none', 4],
  ['subject', 1],
  ['grant-reader', 1],
] as const;
const MCP = [
  ['mcp-reader', 3],
  ['mcp-writer', 2],
  ['mcp-package', 2],
  ['grant-reader', 0.5],
  ['subject', 0.5],
  ['a2a-reader', 0.3],
  ['none', 1],
] as const;
const A2A = [
  ['a2a-reader', 3],
  ['a2a-writer', 2],
  ['a2a-matcher', 1.5],
  ['mcp-reader', 0.3],
  ['subject', 0.3],
  ['none', 1],
] as const;
const AGUI = [
  ['subject', 3],
  ['session+csrf', 2],
  ['session', 1],
  ['grant-reader', 1],
  ['none', 1],
] as const;
const WEB = [
  ['session', 3],
  ['none', 2],
  ['subject', 0.3],
] as const;

const inputSchema = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

const str = (extra: Partial<JsonSchema> = {}): JsonSchema => ({ type: 'string', ...extra });
const obj = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

function apiTargets(): Target[] {
  return ROUTES.map((route): Target => {
    const { method, path, input } = route.http;
    const schema = inputSchema(route.operation.input);
    const name = route.operation.name;
    return {
      name: `${method} ${path}`,
      method,
      route: path,
      surface: 'http-api',
      body: input === 'body' ? 'json' : 'none',
      ...(input === 'body' || input === 'path' ? { schema } : {}),
      ...(input === 'query' ? { query: schema } : {}),
      credentials: apiCredentials(route.operation),
      weight: 1,
      limit: API_LIMIT,
      ...(name === 'revoke_consent_grant' ? { ends: true as const } : {}),
      ...(name.startsWith('delete_') ? { destructive: true as const } : {}),
    };
  });
}

const TOKEN_PARAMS = obj({
  grant_type: str(),
  code: str(),
  redirect_uri: str(),
  code_verifier: str(),
  client_id: str(),
  client_secret: str(),
  refresh_token: str(),
  resource: str(),
  scope: str(),
});
const TOKEN_REQUEST = obj({ token: str(), token_type_hint: str(), client_id: str(), client_secret: str() }, [
  'token',
]);
const REGISTRATION = {
  type: 'object',
  properties: {
    redirect_uris: { type: 'array', items: str() },
    client_name: str(),
    token_endpoint_auth_method: {
      enum: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    },
    grant_types: { type: 'array', items: { enum: ['authorization_code', 'refresh_token', 'implicit'] } },
    response_types: { type: 'array', items: { enum: ['code', 'token'] } },
    scope: str(),
    client_uri: str(),
    logo_uri: str(),
    contacts: { type: 'array', items: str() },
    software_id: str(),
  },
  required: ['redirect_uris'],
} as const satisfies JsonSchema;
const AUTHORIZE_QUERY = obj({
  response_type: str(),
  client_id: str(),
  redirect_uri: str(),
  code_challenge: str(),
  code_challenge_method: str(),
  state: str(),
  scope: str(),
  resource: str(),
  authorization_details: str(),
  request: str(),
  request_uri: str(),
  prompt: str(),
});

function oauthTargets(): Target[] {
  const back = (route: string, schema: JsonSchema, ends = false): Target => ({
    name: `POST ${route}`,
    method: 'POST',
    route,
    surface: 'oauth',
    body: 'params',
    schema,
    credentials: [
      ['none', 4],
      ['subject', 1],
    ],
    weight: 1,
    limit: API_LIMIT,
    ...(ends ? { ends: true as const } : {}),
  });
  const meta = (route: string): Target => ({
    name: `GET ${route}`,
    method: 'GET',
    route,
    surface: 'oauth',
    body: 'none',
    credentials: PUBLIC,
    weight: 0.3,
    limit: API_LIMIT,
  });
  return [
    back('/oauth/token', TOKEN_PARAMS),
    { ...back('/oauth/register', REGISTRATION), body: 'json' },
    back('/oauth/revoke', TOKEN_REQUEST, true),
    back('/oauth/package/disconnect', TOKEN_REQUEST, true),
    back('/oauth/introspect', TOKEN_REQUEST),
    meta('/.well-known/oauth-authorization-server'),
    meta('/.well-known/oauth-protected-resource'),
    meta('/.well-known/oauth-protected-resource/mcp'),
    meta('/.well-known/oauth-protected-resource/a2a'),
    {
      name: 'GET /oauth/authorize',
      method: 'GET',
      route: '/oauth/authorize',
      surface: 'web',
      body: 'none',
      query: AUTHORIZE_QUERY,
      credentials: WEB,
      weight: 1.5,
      limit: API_LIMIT,
    },
  ];
}

function protocolTargets(): Target[] {
  const other = (route: string, methods: string[], surface: Surface, credentials: Target['credentials']) =>
    methods.map(
      (method): Target => ({
        name: `${method} ${route}`,
        method,
        route,
        surface,
        body: 'none',
        credentials,
        weight: 0.2,
        limit: API_LIMIT,
      }),
    );
  return [
    {
      name: 'POST /mcp',
      method: 'POST',
      route: '/mcp',
      surface: 'mcp',
      body: 'mcp',
      credentials: MCP,
      weight: 8,
      limit: API_LIMIT,
    },
    ...other('/mcp', ['GET', 'DELETE'], 'mcp', MCP),
    {
      name: 'POST /a2a',
      method: 'POST',
      route: '/a2a',
      surface: 'a2a',
      body: 'a2a',
      credentials: A2A,
      weight: 7,
      limit: API_LIMIT,
    },
    ...other('/a2a', ['GET', 'PUT', 'PATCH', 'DELETE'], 'a2a', A2A),
    {
      name: 'POST /v1/agui/review',
      method: 'POST',
      route: '/v1/agui/review',
      surface: 'agui',
      body: 'agui',
      credentials: AGUI,
      weight: 5,
      limit: API_LIMIT,
    },
    ...other('/v1/agui/review', ['GET', 'PUT', 'PATCH', 'DELETE'], 'agui', AGUI),
  ];
}

const SIGNIN_FORM = obj({ csrf: str(), username: str(), password: str(), return_to: str() });
const SIGNUP_FORM = obj({
  csrf: str(),
  username: str(),
  password: str(),
  password_again: str(),
  return_to: str(),
});
const DECISION_FORM: JsonSchema = {
  type: 'object',
  properties: {
    csrf: str(),
    decision: str(),
    purpose: { type: 'array', items: str() },
    domain: { type: 'array', items: str() },
    namespace: { type: 'array', items: str() },
    key: { type: 'array', items: str() },
    operation: { type: 'array', items: str() },
    cross_domain_transfer: { enum: ['deny', 'allow_with_review', 'allow_if_same_provider', 'allow', 'x'] },
    writeback_policy: { enum: ['forbidden', 'review_required', 'auto_for_low_risk', 'allow', 'x'] },
    duration: { enum: ['', '1', '7', '30', '90', '180', '-1', '100000', 'x'] },
    'e0.choice': { enum: ['approve', 'reject', 'x'] },
    'e0.request': str(),
    'e1.choice': { enum: ['approve', 'reject', 'x'] },
  },
  required: ['csrf', 'decision'],
  additionalProperties: false,
};

function webTargets(): Target[] {
  const page = (route: string, weight = 0.5, query?: JsonSchema): Target => ({
    name: `GET ${route}`,
    method: 'GET',
    route,
    surface: 'web',
    body: 'none',
    ...(query ? { query } : {}),
    credentials: WEB,
    weight,
    limit: FORM_LIMIT,
  });
  const form = (route: string, schema: JsonSchema, weight: number, csrf: Target['csrf']): Target => ({
    name: `POST ${route}`,
    method: 'POST',
    route,
    surface: 'web',
    body: 'form',
    schema,
    credentials: WEB,
    weight,
    limit: FORM_LIMIT,
    ...(csrf ? { csrf } : {}),
  });
  const json = (route: string, schema: JsonSchema, weight: number, csrf: Target['csrf']): Target => ({
    ...form(route, schema, weight, csrf),
    body: 'json',
  });
  return [
    page('/signin', 0.5, obj({ return_to: str() })),
    // Sign-in and sign-up hash a password (scrypt, ~50 ms) once past the CSRF check: fewer of them.
    form('/signin', SIGNIN_FORM, 0.5, 'pre-session'),
    {
      ...form('/signout', obj({ csrf: str() }), 0.3, 'session'),
      credentials: [
        ['spare-session', 2],
        ['none', 1],
      ],
    },
    page('/signup', 0.2),
    form('/signup', SIGNUP_FORM, 0.3, 'pre-session'),
    page('/consent/:id', 1.5),
    page('/consent/:id/done', 0.5),
    form('/consent/:id/decision', DECISION_FORM, 2, 'session'),
    page('/web/style.css', 0.1),
    page('/app', 0.5),
    page('/app/access', 0.2),
    page('/app/history', 0.2),
    page('/app/activity', 0.2),
    page('/app/data', 0.2),
    page('/app/', 0.1),
    page('/app/*', 0.3),
    page('/app/assets/:name', 0.3),
    page('/app/apps.json', 0.5, { type: 'object', properties: { id: { type: 'array', items: str() } } }),
    page('/favicon.svg', 0.15),
    page('/favicon.ico', 0.15),
    page('/app/data/conflicts', 0.2),
    page('/app/data/sensitive', 0.2),
    page('/app/data/preference', 0.2, obj({ key: str() })),
    page('/app/receipts', 0.2),
    page('/app/security', 0.2),
    page('/app/receipts.json', 0.3),
    page('/app/receipts/:id/download', 0.3),
    page('/app/api/sign-in-methods', 0.2),
    page('/passkey-setup/:token', 0.3),
    // Passkey requests (docs/passkeys.md): JSON, on the pre-session cookie or the session.
    ...['/passkeys/signin/options', '/passkeys/signin', '/passkeys/signup/options', '/passkeys/signup'].map(
      (route) => json(route, PASSKEY_BODY, 0.2, 'pre-session'),
    ),
    json('/passkeys/setup/options', obj({ csrf: str(), token: str() }), 0.2, 'pre-session'),
    json('/passkeys/setup', PASSKEY_BODY, 0.2, 'pre-session'),
    ...[
      '/app/api/passkeys/options',
      '/app/api/passkeys',
      '/app/api/passkeys/remove',
      '/app/api/password-sign-in',
      '/app/api/confirm/options',
      '/app/api/confirm',
    ].map((route) => json(route, PASSKEY_BODY, 0.2, 'session')),
  ];
}

/** What the passkey requests read: a CSRF token, names, a passkey answer (JSON text), a switch. */
const PASSKEY_BODY = obj({
  csrf: str(),
  username: str(),
  name: str(),
  id: str(),
  token: str(),
  password: str(),
  credential: str(),
  on: { type: 'boolean' },
});

function metaTargets(): Target[] {
  const get = (route: string, weight: number, surface: Surface = 'meta'): Target => ({
    name: `GET ${route}`,
    method: 'GET',
    route,
    surface,
    body: 'none',
    credentials: PUBLIC,
    weight,
    limit: API_LIMIT,
  });
  return [
    get('/healthz', 0.2),
    get('/readyz', 0.2),
    get('/metrics', 0.1),
    // Large documents, each read by every client once: a few of them.
    get('/openapi.json', 0.15, 'http-api'),
    get('/.well-known/jwks.json', 0.2, 'http-api'),
    get('/.well-known/mcp.json', 0.2, 'mcp'),
    get('/.well-known/agent-card.json', 0.2, 'a2a'),
    // Nowhere: the 404 and 405 answers.
    {
      name: 'ANY (no such route)',
      method: 'GET',
      route: '/no/such/route',
      surface: 'meta',
      body: 'json',
      schema: {},
      credentials: PUBLIC,
      weight: 1,
      limit: API_LIMIT,
    },
  ];
}

export const TARGETS: readonly Target[] = [
  ...apiTargets(),
  ...oauthTargets(),
  ...protocolTargets(),
  ...webTargets(),
  ...metaTargets(),
];

/** The server's routes no target aims at (should be none). */
export function uncovered(routes: readonly { method: string; path: string }[]): string[] {
  const aimed = new Set(TARGETS.map((t) => `${t.method} ${t.route}`));
  return routes.map((r) => `${r.method} ${r.path}`).filter((r) => !aimed.has(r));
}

/** The operations the MCP tools, A2A skills and AG-UI actions run (their input schemas). */
export const OPERATIONS = new Map(CATALOG.map((op) => [op.name, op]));
export const AGUI_ACTIONS = CATALOG.filter((op) => op.agui).map((op) => ({
  name: op.name,
  schema: inputSchema(op.input),
}));
export const A2A_SKILLS = CATALOG.filter((op) => op.a2a).map((op) => ({
  skill: op.a2a!.skill,
  schema: inputSchema(op.input),
}));
