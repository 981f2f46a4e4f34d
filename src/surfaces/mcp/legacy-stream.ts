import type { TokenCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';
import { followedResources } from '../../operations/grants/resource-subscriptions.ts';
import { type GrantWatch, watchGrant } from '../../operations/grants/watch-grant.ts';
import type { Outgoing } from '../shared/bounded-stream.ts';
import type { StreamLimit } from '../shared/stream-limit.ts';
import { noticeStream, SSE_HEADERS } from './notice-stream.ts';
import { watchable } from './watched-resources.ts';

// MCP 2025-11-25's server stream (GET /mcp) for a grant's resource subscriptions (issue 25
// item 2, docs/subscriptions.md). That revision subscribes with `resources/subscribe` in one POST
// and tells `notifications/resources/updated` on a GET stream; this provider is stateless, so
// what a grant follows is in the store (operations/grants/resource-subscriptions.ts), and the
// stream of a grant's token watches whatever its grant follows now: it reads the list again when
// a subscription changes on this instance, and every REREAD_MS for those made on another.

/** How often an open stream reads again what its grant follows (for changes on other instances). */
const REREAD_MS = 1_000;

export interface LegacyStreamOptions {
  /** Shared with the 2026-07-28 listens (listen.ts): one bound on a grant's streams. */
  readonly limit: StreamLimit;
}

export class LegacyStreams {
  readonly #deps: Deps;
  readonly #options: LegacyStreamOptions;
  /** This instance's open streams, by grant: each reads its list again when told. */
  readonly #open = new Map<string, Set<() => void>>();

  constructor(deps: Deps, options: LegacyStreamOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /** Tells this instance's streams of the grant that what it follows changed. */
  followed(grantId: string): Promise<void> {
    const rereads = [...(this.#open.get(grantId) ?? [])].map((reread) => reread());
    return Promise.all(rereads).then(() => undefined);
  }

  /**
   * The stream of a single grant's token, or undefined when the token has none (a package
   * token has no resources): the caller answers 405 then, as before.
   */
  async open(caller: TokenCaller, outgoing?: Outgoing): Promise<Response | undefined> {
    if (caller.kind !== 'grant') return undefined;
    const grantId = caller.caller.grant.grant_id;
    const release = this.#options.limit.take(grantId);
    if (release === undefined) {
      return Response.json(
        {
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: `this grant already has ${this.#options.limit.max} streams open; close one and try again`,
          },
          id: null,
        },
        { status: 429 },
      );
    }
    let watch: GrantWatch;
    try {
      const first = await this.#views(caller);
      watch = await watchGrant(this.#deps, caller.caller, first, { tokenExpiresAt: caller.tokenExpiresAt });
    } catch (error) {
      release();
      throw error;
    }
    // One read of the list at a time; a poke while one runs is served by one more after it.
    let reading: Promise<void> = Promise.resolve();
    const reread = () => {
      reading = reading.then(async () => watch.setViews(await this.#views(caller))).catch(() => undefined);
      return reading;
    };
    const streams = this.#open.get(grantId) ?? new Set();
    streams.add(reread);
    this.#open.set(grantId, streams);
    const timer = setInterval(reread, REREAD_MS);
    timer.unref?.();
    const stream = noticeStream(
      this.#deps,
      watch,
      {
        updated: (uri) => ({ method: 'notifications/resources/updated', params: { uri } }),
      },
      {
        onEnd: () => {
          clearInterval(timer);
          streams.delete(reread);
          if (streams.size === 0) this.#open.delete(grantId);
          release();
        },
        ...(outgoing ? { outgoing } : {}),
      },
    );
    return new Response(stream, { status: 200, headers: SSE_HEADERS });
  }

  async #views(caller: TokenCaller & { kind: 'grant' }) {
    const uris = await followedResources(this.#deps, caller.caller);
    return (await watchable(this.#deps, caller, uris))?.views ?? [];
  }
}
