import { it } from 'node:test';

/**
 * Options for a describe() that is skipped when `reason` is a string (Chromium missing, ../shared
 * missing). node:test counts skipped tests, not skipped suites, so a skipped describe would leave
 * the summary at "skipped 0"; this also registers one skipped test saying why, so the count shows.
 */
export function skipWhen(reason: string | false): { skip: string | false } {
  if (reason !== false) it(`skipped: ${reason}`, { skip: reason }, () => undefined);
  return { skip: reason };
}
