import { createHash, randomBytes } from 'node:crypto';
import { DEMO_SUBJECT } from '../../src/operations/seed/demo-profile.ts';
import { keysOfNamespace } from '../../src/surfaces/shared/describe.ts';

// One request of each surface as its clients send it, and the answer that counts as success:
// shared by the crash load, the graceful-shutdown test (test/cli/serve-lifecycle.test.ts) and the soak
// (bench/soak.ts). Not a *.test.ts file.

export interface SurfaceRequest {
  /** What it is, for tables: `http read`, `mcp tool`, … */
  readonly label: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Whether the answer is the success this request expects (status, and a glance at the body). */
  readonly ok: (status: number, text: string) => boolean;
  /** Whether it writes (for the database growth per write). */
  readonly writes: boolean;
}

const json = (token?: string): Record<string, string> => ({
  'content-type': 'application/json',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});
const form = (cookie?: string): Record<string, string> => ({
  'content-type': 'application/x-www-form-urlencoded',
  ...(cookie ? { cookie } : {}),
});
const status =
  (...wanted: number[]) =>
  (s: number) =>
    wanted.includes(s);

export const CONTEXT = { climate: 'hot_humid', occasion: 'date_night' } as const;

/** The demo client every request here is made for, and its registered redirect URI. */
export const CLIENT = 'fragrance-demo';
export const REDIRECT = 'http://localhost:5173/callback';

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A consent request of the demo client for the demo subject (WIRE-NOTES §2.1). */
export function consentAskBody(
  challenge: string,
  operations: readonly string[] = ['read', 'query'],
  writeback = 'forbidden',
) {
  return {
    client_id: CLIENT,
    subject_id: DEMO_SUBJECT,
    purposes: ['recommendation'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_operations: operations,
    writeback_policy: writeback,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
}

/** POST /v1/consent/request: 201 with the request's id and token. */
export function consentAsk(challenge: string): SurfaceRequest {
  return {
    label: 'consent request',
    method: 'POST',
    path: '/v1/consent/request',
    headers: json(),
    body: JSON.stringify(consentAskBody(challenge)),
    ok: status(201),
    writes: true,
  };
}

/** POST /v1/consent/token: an approved request exchanged for its tokens. */
export function consentExchange(id: string, requestToken: string, verifier: string): SurfaceRequest {
  return {
    label: 'consent exchange',
    method: 'POST',
    path: '/v1/consent/token',
    headers: json(),
    body: JSON.stringify({
      grant_request_id: id,
      request_token: requestToken,
      code_verifier: verifier,
      client_id: CLIENT,
    }),
    ok: status(200),
    writes: true,
  };
}

/** POST /v1/profile/effective under a grant. */
export function effectiveRead(token: string): SurfaceRequest {
  return {
    label: 'http read',
    method: 'POST',
    path: '/v1/profile/effective',
    headers: json(token),
    body: JSON.stringify({ context: CONTEXT }),
    ok: status(200),
    writes: false,
  };
}

/** GET /v1/profile/summary as the subject. */
export function summaryRead(token: string): SurfaceRequest {
  return {
    label: 'http read',
    method: 'GET',
    path: '/v1/profile/summary',
    headers: { authorization: `Bearer ${token}` },
    ok: status(200),
    writes: false,
  };
}

/** A claim a grantee proposes (the provider picks its id); `n` makes its value differ. */
export function proposedClaim(n: number, key = 'risk_tolerance') {
  return {
    type: 'preference',
    namespace: 'core',
    key,
    value: Math.round((n % 97) * 10) / 1000,
    confidence: 0.6,
    source: { kind: 'observed', origin: 'in_app_session' },
  };
}

/** POST /v1/profile/propose-updates: applied (200) or queued for review (202) by the grant's policy. */
export function proposal(token: string, n: number): SurfaceRequest {
  return {
    label: 'http write-back',
    method: 'POST',
    path: '/v1/profile/propose-updates',
    headers: json(token),
    body: JSON.stringify({ claims: [proposedClaim(n)] }),
    ok: status(200, 202),
    writes: true,
  };
}

/** POST /v1/profile/confirm-updates: the subject decides one proposal. */
export function confirmation(
  token: string,
  proposalId: string,
  action: 'confirm' | 'reject',
): SurfaceRequest {
  return {
    label: 'http write-back',
    method: 'POST',
    path: '/v1/profile/confirm-updates',
    headers: json(token),
    body: JSON.stringify({ decisions: [{ proposal_id: proposalId, action }] }),
    ok: status(200),
    writes: true,
  };
}

/** POST /v1/consent/revoke as the subject. */
export function revocation(token: string, grantId: string): SurfaceRequest {
  return {
    label: 'revocation',
    method: 'POST',
    path: '/v1/consent/revoke',
    headers: json(token),
    body: JSON.stringify({ grant_id: grantId }),
    ok: status(200),
    writes: true,
  };
}

export const MCP_PROTOCOL_VERSION = '2025-11-25';

/** `tools/call` over Streamable HTTP (a stateless POST, as bench/mcp-requests.ts). */
export function mcpTool(
  token: string,
  tool = 'ppx_get_effective_profile',
  args: unknown = { context: CONTEXT },
) {
  const request: SurfaceRequest = {
    label: 'mcp tool',
    method: 'POST',
    path: '/mcp',
    headers: {
      ...json(token),
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MCP_PROTOCOL_VERSION,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args },
    }),
    ok: (s, text) => s === 200 && text.includes('"result"') && !text.includes('"isError":true'),
    writes: false,
  };
  return request;
}

let a2aMessages = 0;

/** A2A 1.0 `SendMessage` of the `get_effective_profile` skill (as bench/a2a.ts). */
export function a2aMessage(token: string): SurfaceRequest {
  return {
    label: 'a2a message',
    method: 'POST',
    path: '/a2a',
    headers: { ...json(token), 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId: `soak-${process.pid}-${a2aMessages++}`,
          role: 'ROLE_USER',
          parts: [
            {
              data: { method: 'get_effective_profile', params: { context: CONTEXT } },
              mediaType: 'application/json',
            },
          ],
        },
      },
    }),
    // The task is saved in the store: an A2A message writes.
    ok: (s, text) => s === 200 && text.includes('TASK_STATE_COMPLETED'),
    writes: true,
  };
}

let aguiRuns = 0;

/** An AG-UI RunAgentInput for the review stream; one-shot unless `follow`. */
export function aguiInput(follow: boolean) {
  const n = aguiRuns++;
  return {
    threadId: `soak-${process.pid}-${n}`,
    runId: `soak-run-${process.pid}-${n}`,
    messages: [],
    tools: [],
    context: [],
    state: {},
    forwardedProps: { follow },
  };
}

/** POST /v1/agui/review, one-shot: RUN_STARTED, STATE_SNAPSHOT, RUN_FINISHED. */
export function aguiRun(token: string): SurfaceRequest {
  return {
    label: 'ag-ui run',
    method: 'POST',
    path: '/v1/agui/review',
    headers: { ...json(token), accept: 'text/event-stream' },
    body: JSON.stringify(aguiInput(false)),
    ok: (s, text) => s === 200 && text.includes('"RUN_FINISHED"'),
    writes: false,
  };
}

/** RFC 6749 §6 at the OAuth token endpoint. */
export function oauthRefresh(clientId: string, refreshToken: string): SurfaceRequest {
  return {
    label: 'oauth refresh',
    method: 'POST',
    path: '/oauth/token',
    headers: form(),
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }).toString(),
    ok: status(200),
    writes: true,
  };
}

/** consent-v2's refresh (WIRE-NOTES §2.4). */
export function consentRefresh(clientId: string, refreshToken: string): SurfaceRequest {
  return {
    label: 'consent refresh',
    method: 'POST',
    path: '/v1/consent/refresh',
    headers: json(),
    body: JSON.stringify({ client_id: clientId, refresh_token: refreshToken }),
    ok: status(200),
    writes: true,
  };
}

/** GET /consent/:id with a signed-in session: the consent page. */
export function consentPage(session: string, requestId: string): SurfaceRequest {
  return {
    label: 'consent page',
    method: 'GET',
    path: `/consent/${encodeURIComponent(requestId)}`,
    headers: { cookie: `ppx_session=${session}` },
    ok: (s, text) => s === 200 && text.includes('name="decision"'),
    writes: false,
  };
}

/** The consent form as the page shows it, every box ticked as asked (decisions.test.ts). */
export function decisionFields(csrf: string, decision: 'approve' | 'reject'): URLSearchParams {
  return new URLSearchParams([
    ['csrf', csrf],
    ['decision', decision],
    ['purpose', 'recommendation'],
    ['domain', 'fragrance'],
    ['namespace', 'core'],
    ['namespace', 'fragrance'],
    ...[...keysOfNamespace('core'), ...keysOfNamespace('fragrance')].map((k): [string, string] => ['key', k]),
    ['operation', 'read'],
    ['operation', 'query'],
    ['cross_domain_transfer', 'deny'],
    ['writeback_policy', 'forbidden'],
  ]);
}

/** POST /consent/:id/decision, the consent page's form: 303 back to the client. */
export function consentDecision(
  session: string,
  csrf: string,
  requestId: string,
  decision: 'approve' | 'reject',
): SurfaceRequest {
  return {
    label: 'consent decision',
    method: 'POST',
    path: `/consent/${encodeURIComponent(requestId)}/decision`,
    headers: form(`ppx_session=${session}`),
    body: decisionFields(csrf, decision).toString(),
    ok: status(303),
    writes: true,
  };
}
