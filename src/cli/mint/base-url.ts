import type { Config } from '../../config.ts';
import { SERVED_BASE_URL_SETTING } from '../../operations/provider/served-base-url.ts';
import type { Store } from '../../store/store.ts';

// `ppx serve` records the base URL it serves on (operations/provider/served-base-url.ts). Tokens name
// their base URL (`iss`, and `aud` is under it), so a token minted for another one is refused:
// mint takes the server's unless told otherwise.

export interface BaseUrlChoice {
  readonly baseUrl: string;
  /** One line for stderr when an explicit base URL is not the one the server last served on. */
  readonly warning?: string;
}

/** `explicit` names where the configured base URL came from (a flag or PPX_BASE_URL), if it did. */
function chooseBaseUrl(
  configured: string,
  explicit: '--base-url' | 'PPX_BASE_URL' | undefined,
  served: string | undefined,
): BaseUrlChoice {
  if (served === undefined) return { baseUrl: configured };
  if (explicit === undefined) return { baseUrl: served };
  if (configured === served) return { baseUrl: configured };
  return {
    baseUrl: configured,
    warning:
      `warning: ${explicit} ${configured} is not ${served}, the base URL the server last served on; ` +
      'that server will refuse these tokens',
  };
}

/** OpenOptions.settle for mint: the config with the chosen base URL, the warning printed. */
export function servedBaseUrl(explicit: '--base-url' | 'PPX_BASE_URL' | undefined) {
  return async (store: Store, config: Config): Promise<Config> => {
    const choice = chooseBaseUrl(config.baseUrl, explicit, await store.getSetting(SERVED_BASE_URL_SETTING));
    if (choice.warning !== undefined) console.error(`ppx mint: ${choice.warning}`);
    return { ...config, baseUrl: choice.baseUrl };
  };
}
