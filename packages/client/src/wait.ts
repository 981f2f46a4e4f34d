import type { PpxClient } from './client.ts';
import type { PendingGrant } from './consent.ts';
import { fail, type Result } from './result.ts';
import type { StoredTokens } from './token-store.ts';

export interface WaitOptions {
  /** First pause between tries (default 1 s); it doubles up to `maxIntervalMs` (default 10 s). */
  readonly intervalMs?: number;
  readonly maxIntervalMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Waits for the person over the back channel: tries the exchange, with backoff, until it gives
 * tokens or the request expires. The provider answers a refusal exactly as an undecided request
 * (`invalid_grant`), so a refused request ends as `decision_timeout` at its expiry; an app that
 * has a redirect URI learns a refusal at once from `decisionFromRedirect`.
 */
export async function waitForDecision(
  client: PpxClient,
  pending: PendingGrant,
  options: WaitOptions = {},
): Promise<Result<StoredTokens>> {
  const until = Date.parse(pending.expiresAt);
  let interval = options.intervalMs ?? 1000;
  for (;;) {
    const r = await client.exchange(pending);
    if (r.ok || r.error.code !== 'invalid_grant') return r;
    if (options.signal?.aborted) return fail('decision_timeout', 'stopped waiting for the person');
    if (Date.now() + interval >= until) {
      return fail('decision_timeout', 'the person did not allow this request before it expired');
    }
    await pause(interval, options.signal);
    interval = Math.min(interval * 2, options.maxIntervalMs ?? 10_000);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
