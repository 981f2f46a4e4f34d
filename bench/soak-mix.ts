import {
  a2aMessage,
  aguiRun,
  CLIENT,
  confirmation,
  consentAsk,
  consentDecision,
  consentExchange,
  consentPage,
  consentRefresh,
  effectiveRead,
  mcpTool,
  oauthRefresh,
  pkcePair,
  proposal,
  revocation,
  type SurfaceRequest,
  summaryRead,
} from '../test/support/surface-requests.ts';
import type { SoakWorld } from './soak-world.ts';

// The soak's traffic: a weighted mix of what every surface is asked, one action at a time,
// including the writes that keep state moving: proposals applied at once and queued for review
// (then confirmed or rejected), refresh rotations, and the whole consent cycle, as a client and
// the person go through it (request → the consent page → the person's decision on its form →
// the client's exchange → … → the person revokes the grant). An action whose state is not there
// yet (nothing to confirm, no page seen) does the step that makes it instead.

export interface Outcome {
  /** The request's kind, as SurfaceRequest labels it. */
  readonly label: string;
  readonly ok: boolean;
  readonly ms: number;
  readonly writes: boolean;
  /** For a failure: the status and the start of the body, or the network error. */
  readonly detail?: string;
  /** The error code when there was no answer (ECONNREFUSED, ECONNRESET, …). */
  readonly code?: string;
}

type Action =
  | 'http read'
  | 'http summary'
  | 'mcp read'
  | 'mcp summary'
  | 'a2a'
  | 'ag-ui'
  | 'propose applied'
  | 'propose queued'
  | 'confirm'
  | 'refresh'
  | 'consent request'
  | 'consent page'
  | 'consent decision'
  | 'exchange'
  | 'revoke';

/** Weights, out of 100: about 46 % of the requests read, 54 % write (an A2A message saves its task). */
export const WEIGHTS: Readonly<Record<Action, number>> = {
  'http read': 16,
  'http summary': 4,
  'mcp read': 10,
  'mcp summary': 3,
  a2a: 8,
  'ag-ui': 6,
  'propose applied': 8,
  'propose queued': 4,
  confirm: 4,
  refresh: 9,
  'consent request': 6,
  'consent page': 6,
  'consent decision': 6,
  exchange: 5,
  revoke: 5,
};

interface Pending {
  readonly id: string;
  readonly requestToken: string;
  readonly verifier: string;
  /** Its page was shown. */
  seen: boolean;
  /** A page load of it is in flight: deciding it now would close the page under the load. */
  showing: number;
}

interface Family {
  token: string;
  busy: boolean;
  /** Set for a family of the consent cycle: its grant, which a revocation ends. */
  readonly grantId?: string;
}

/** Sends `r` and times it to its whole answer. */
export async function timed(base: string, r: SurfaceRequest): Promise<Outcome & { text: string }> {
  const started = performance.now();
  try {
    const res = await fetch(base + r.path, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined ? { body: r.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const ok = r.ok(res.status, text);
    return {
      label: r.label,
      ok,
      ms: performance.now() - started,
      writes: r.writes,
      text,
      ...(ok ? {} : { detail: `${res.status} ${text.slice(0, 160)}` }),
    };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? (e instanceof Error ? e.name : 'error');
    return {
      label: r.label,
      ok: false,
      ms: performance.now() - started,
      writes: r.writes,
      text: '',
      code,
      detail: `${code} ${cause?.message ?? (e instanceof Error ? e.message : String(e))}`,
    };
  }
}

export class Mix {
  readonly #world: SoakWorld;
  readonly #rand: () => number;
  readonly #table: Action[];
  readonly #queued: string[] = [];
  readonly #pending: Pending[] = [];
  readonly #approved: Pending[] = [];
  readonly #families: Family[];
  #n = 0;

  constructor(world: SoakWorld, rand: () => number) {
    this.#world = world;
    this.#rand = rand;
    this.#table = (Object.entries(WEIGHTS) as [Action, number][]).flatMap(([a, w]) => Array(w).fill(a));
    this.#families = world.families.map((token) => ({ token, busy: false }));
  }

  /** Runs one action, picked by weight. */
  next(): Promise<Outcome> {
    const action = this.#table[Math.floor(this.#rand() * this.#table.length)] as Action;
    return this.run(action);
  }

  /** How much state the cycle holds now (to see that it stays bounded). */
  get backlog() {
    return {
      queuedProposals: this.#queued.length,
      pendingRequests: this.#pending.length,
      approved: this.#approved.length,
      families: this.#families.length,
    };
  }

  async run(action: Action): Promise<Outcome> {
    const w = this.#world;
    const n = this.#n++;
    const send = (r: SurfaceRequest) => timed(w.base, r);
    switch (action) {
      case 'http read':
        return send(effectiveRead(w.tokens.read));
      case 'http summary':
        return send(summaryRead(w.subject));
      case 'mcp read':
        return send(mcpTool(w.tokens.mcp));
      case 'mcp summary':
        return send(mcpTool(w.tokens.mcp, 'ppx_get_profile_summary', {}));
      case 'a2a':
        return send(a2aMessage(w.tokens.a2a));
      case 'ag-ui':
        return send(aguiRun(w.subject));
      case 'propose applied':
        return send(proposal(w.tokens.writeApplied, n));
      case 'propose queued': {
        const out = await send(proposal(w.tokens.writeQueued, n));
        if (out.ok) this.#queued.push(JSON.parse(out.text).proposals[0].proposal_id);
        return out;
      }
      case 'confirm': {
        const id = this.#queued.shift();
        if (id === undefined) return this.run('propose queued');
        return send(confirmation(w.subject, id, this.#rand() < 0.7 ? 'confirm' : 'reject'));
      }
      case 'refresh': {
        const family = this.#families.find((f) => !f.busy);
        if (family === undefined) return this.run('http read');
        // Rotations of one family one after the other: two at once would be a replay.
        family.busy = true;
        const r = n % 2 === 0 ? oauthRefresh : consentRefresh;
        try {
          const out = await send(r(CLIENT, family.token));
          if (out.ok) family.token = JSON.parse(out.text).refresh_token;
          return out;
        } finally {
          family.busy = false;
          // To the back of the line, so that every family is rotated in turn.
          this.#families.push(...this.#families.splice(this.#families.indexOf(family), 1));
        }
      }
      case 'consent request': {
        const pkce = pkcePair();
        const out = await send(consentAsk(pkce.challenge));
        if (out.ok) {
          const body = JSON.parse(out.text);
          this.#pending.push({
            id: body.grant_request_id,
            requestToken: body.request_token,
            verifier: pkce.verifier,
            seen: false,
            showing: 0,
          });
        }
        return out;
      }
      case 'consent page': {
        const request = this.#pending.find((p) => !p.seen) ?? this.#pending[0];
        if (request === undefined) return this.run('consent request');
        request.showing++;
        try {
          const out = await send(consentPage(w.session.session, request.id));
          if (out.ok) request.seen = true;
          return out;
        } finally {
          request.showing--;
        }
      }
      case 'consent decision': {
        // A person decides on a page they saw, not one still loading (which would then find the
        // request closed: 409).
        const i = this.#pending.findIndex((p) => p.seen && p.showing === 0);
        if (i < 0) return this.run('consent page');
        const [request] = this.#pending.splice(i, 1) as [Pending];
        const approve = this.#rand() < 0.7;
        const out = await send(
          consentDecision(w.session.session, w.session.csrf, request.id, approve ? 'approve' : 'reject'),
        );
        if (out.ok && approve) this.#approved.push(request);
        return out;
      }
      case 'exchange': {
        const request = this.#approved.shift();
        if (request === undefined) return this.run('consent decision');
        const out = await send(consentExchange(request.id, request.requestToken, request.verifier));
        if (out.ok) {
          const body = JSON.parse(out.text);
          this.#families.push({ token: body.refresh_token, busy: false, grantId: body.grant_id });
        }
        return out;
      }
      case 'revoke': {
        const i = this.#families.findIndex((f) => f.grantId !== undefined && !f.busy);
        if (i < 0) return this.run('exchange');
        const [family] = this.#families.splice(i, 1) as [Family];
        return send(revocation(w.subject, family.grantId as string));
      }
    }
  }
}
