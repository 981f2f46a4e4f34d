import { createHash, randomBytes } from 'node:crypto';
import { DEMO_CLIENTS, DEMO_SUBJECT } from '../src/operations/seed/demo-profile.ts';

// A refresh token of the demo client, the way a client gets one over HTTP (consent-v2,
// WIRE-NOTES §2: request → the subject approves → exchange), and its rotation through the OAuth
// token endpoint (RFC 6749 §6, grant_type=refresh_token), one rotation after the other.

const CLIENT = DEMO_CLIENTS[0];

export async function postJson(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** What the consent exchange answers (the fields the benches use). */
export interface ConsentTokens {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly grant_id: string;
}

/** A fresh grant of the demo client over core + fragrance, approved by the demo subject: its tokens. */
export async function consentTokens(url: string, subjectToken: string): Promise<ConsentTokens> {
  const verifier = randomBytes(32).toString('base64url');
  const asked = await postJson(`${url}/v1/consent/request`, {
    client_id: CLIENT.client_id,
    subject_id: DEMO_SUBJECT,
    purposes: ['recommendation'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_operations: ['read', 'query'],
    redirect_uri: CLIENT.redirect_uris[0],
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const id = asked['grant_request_id'];
  await postJson(`${url}/v1/consent/approve`, { grant_request_id: id }, subjectToken);
  const tokens = await postJson(`${url}/v1/consent/token`, {
    grant_request_id: id,
    request_token: asked['request_token'],
    code_verifier: verifier,
    client_id: CLIENT.client_id,
  });
  const { access_token, refresh_token, grant_id } = tokens;
  if (typeof access_token !== 'string' || typeof refresh_token !== 'string' || typeof grant_id !== 'string')
    throw new Error('consent exchange: no access_token, refresh_token or grant_id');
  return { access_token, refresh_token, grant_id };
}

/** A fresh grant's refresh token (consentTokens). */
export async function refreshTokenOf(url: string, subjectToken: string): Promise<string> {
  return (await consentTokens(url, subjectToken)).refresh_token;
}

/** Rotates `refreshToken` `times` times through POST /oauth/token; resolves to the last one. */
export async function rotate(url: string, refreshToken: string, times: number): Promise<string> {
  let token = refreshToken;
  for (let i = 0; i < times; i++) {
    const res = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: CLIENT.client_id,
      }),
    });
    const json = (await res.json()) as { refresh_token?: string };
    if (res.status !== 200 || typeof json.refresh_token !== 'string')
      throw new Error(`refresh ${i + 1}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    token = json.refresh_token;
  }
  return token;
}
