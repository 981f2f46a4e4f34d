import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Claim, qualifiedKey } from '../src/model/claim.ts';
import type { ContextModifier, ResolutionContext } from '../src/model/context-modifier.ts';
import { conditionMatches } from '../src/resolve/modifiers.ts';
import { readBody, serveBare } from './bare-server.ts';
import { BENCH_NAMESPACES, BENCH_PATH, benchProfile } from './fixtures.ts';

// Child-process entry: a bare node:http server doing "the same JSON work" as the provider's
// POST /v1/profile/effective, without auth, policy, store, validation or audit. It reads and parses
// the body, copies the same 200 claims held in memory, matches the same 20 modifiers' conditions
// against the body's context, nudges the targeted numeric values, and stringifies a response of the
// same shape. Prints one JSON line {"url"} on stdout.

const profile = benchProfile();
const claims: readonly Claim[] = profile.claims ?? [];
const modifiers: readonly ContextModifier[] = [...(profile.context_modifiers ?? [])].sort((a, b) =>
  a.modifier_id < b.modifier_id ? -1 : 1,
);
// A stand-in for the pairwise subject id (one HMAC per request, like the provider).
const secret = Buffer.from('bench-baseline-secret');

function effective(context: ResolutionContext) {
  const out = claims.map((c) => ({ ...c }));
  const applied: string[] = [];
  for (const m of modifiers) {
    if (!conditionMatches(m.condition, context)) continue;
    const targets = new Set(m.targets ?? []);
    let touched = false;
    for (const c of out) {
      if (!targets.has(qualifiedKey(c))) continue;
      touched = true;
      if (typeof c.value === 'number') c.value = Math.round(Math.min(1, c.value + 0.1) * 10_000) / 10_000;
    }
    if (touched) applied.push(m.modifier_id);
  }
  return {
    ppx_version: profile.ppx_version,
    subject_id: `ppx:subject:${createHmac('sha256', secret).update('bench').digest('base64url').slice(0, 27)}`,
    provider_id: profile.provider_id,
    generated_at: new Date().toISOString(),
    claims: out,
    applied_modifiers: applied,
    grant: {
      grant_id: 'ppx:grant:bench-baseline',
      allowed_namespaces: [...BENCH_NAMESPACES],
      allowed_domains: [...BENCH_NAMESPACES],
      purposes: ['recommendation'],
      cross_domain_transfer: 'deny',
      writeback_policy: 'review_required',
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST' || req.url !== BENCH_PATH) {
    send(res, 404, { error: 'not_found' });
    return;
  }
  readBody(req, (body) => {
    let input: { context?: ResolutionContext };
    try {
      input = body.length === 0 ? {} : JSON.parse(body);
    } catch {
      send(res, 400, { error: 'invalid_request' });
      return;
    }
    send(res, 200, effective(input.context ?? {}));
  });
}

serveBare(handle);
