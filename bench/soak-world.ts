import { createGrant } from '../src/operations/grants/consent-grants.ts';
import { DEMO_SUBJECT } from '../src/operations/seed/demo-profile.ts';
import { DEMO_LOGIN } from '../src/operations/seed/seed-demo.ts';
import { issueGrantToken, issueSubjectToken } from '../src/operations/tokens/issue-tokens.ts';
import { type Served, serve } from '../test/crash/serve-child.ts';
import type { CrashStore } from '../test/crash/stores.ts';
import { freePort } from '../test/support/provider.ts';
import { grantThroughConsent } from '../test/support/seed-over-http.ts';
import { CLIENT } from '../test/support/surface-requests.ts';
import { signInOverHttp } from '../test/support/web-session.ts';

// What the soak's traffic needs, set up before it starts: `ppx serve` as a child process (so
// that its memory can be read from /proc and its inspector asked), on a fresh database, with the demo profile; grants
// of the demo client minted by the operator for each surface (read, write-back applied at once,
// write-back queued for review), the person's own token, a signed-in browser session for the
// consent pages, and a few refresh families made through the consent flow.

export interface SoakWorld {
  readonly base: string;
  readonly server: Served;
  /** The person's token (HTTP API, AG-UI). */
  readonly subject: string;
  readonly session: { readonly session: string; readonly csrf: string };
  /** Grant tokens: the HTTP API (read, and write-back applied or queued), MCP, A2A. */
  readonly tokens: {
    readonly read: string;
    readonly writeApplied: string;
    readonly writeQueued: string;
    readonly mcp: string;
    readonly a2a: string;
  };
  /** Refresh tokens of families that live the whole soak. */
  readonly families: readonly string[];
  /** One more family's refresh token, kept for the drain check. */
  readonly reserved: string;
}

function must<T>(r: { ok: true; value: T } | { ok: false; error: { description: string } }): T {
  if (!r.ok) throw new Error(`soak setup: ${r.error.description}`);
  return r.value;
}

export async function setUpWorld(store: CrashStore, minutes: number, families: number): Promise<SoakWorld> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // --inspect on a loopback port the system picks: soak-gc.ts asks it for the heap after a full GC.
  const server = await serve(store.serveFlags, port, base, { execArgv: ['--inspect=127.0.0.1:0'] });
  // The operator's CLI and the server share the database, as `ppx mint` does.
  const deps = await store.open(base);
  const ttl = Math.ceil(minutes * 60) + 3600;
  let tokens: SoakWorld['tokens'];
  let subject: string;
  try {
    const grant = async (operations: string[], writeback: string) =>
      must(
        await createGrant(
          deps,
          {
            subject_id: DEMO_SUBJECT,
            client_id: CLIENT,
            purposes: ['recommendation'],
            allowed_domains: ['fragrance'],
            allowed_namespaces: ['core', 'fragrance'],
            allowed_operations: operations as ('read' | 'query' | 'propose_update')[],
            writeback_policy: writeback as 'allow' | 'review_required' | 'forbidden',
            expires_at: new Date(Date.now() + ttl * 1000 + 86_400_000).toISOString(),
          },
          'operator',
        ),
      );
    const reader = await grant(['read', 'query'], 'forbidden');
    const applied = await grant(['read', 'query', 'propose_update'], 'allow');
    const queued = await grant(['read', 'query', 'propose_update'], 'review_required');
    const token = async (g: typeof reader, audience?: string) =>
      (await issueGrantToken(deps, g, ttl, audience)).access_token;
    tokens = {
      read: await token(reader),
      writeApplied: await token(applied),
      writeQueued: await token(queued),
      mcp: await token(reader, `${base}/mcp`),
      a2a: await token(reader, `${base}/a2a`),
    };
    subject = (await issueSubjectToken(deps, DEMO_SUBJECT, ttl)).access_token;
  } finally {
    await deps.store.close();
  }
  const session = await signInOverHttp(base, DEMO_LOGIN.username, DEMO_LOGIN.password);
  const made: string[] = [];
  for (let i = 0; i <= families; i++) made.push((await grantThroughConsent(base, subject)).refresh);
  return { base, server, subject, session, tokens, families: made.slice(1), reserved: made[0] as string };
}
