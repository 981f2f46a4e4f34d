import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

/**
 * The base URL `ppx serve` last served on, kept in the store: tokens are issued for (and checked
 * against) the base URL, so the CLI mints for this one unless told otherwise (issue 11).
 */
export const SERVED_BASE_URL_SETTING = 'served_base_url';

export async function rememberServedBaseUrl(deps: Deps, baseUrl: string): Promise<void> {
  if ((await deps.store.getSetting(SERVED_BASE_URL_SETTING)) === baseUrl) return;
  await inTransaction(deps, (tx) => tx.store.putSetting(SERVED_BASE_URL_SETTING, baseUrl));
}
