import { grantStatusAt } from '../../policy/grant-status.ts';
import type { Deps } from '../deps.ts';

/**
 * Whether a grant still authorizes access now: stored, active and unexpired (SPEC §6.2 rules 1
 * and 4, policy/grant-status.ts). What a stream opened under a grant checks before each event.
 */
export async function grantIsLive(deps: Pick<Deps, 'store' | 'clock'>, grantId: string): Promise<boolean> {
  const grant = await deps.store.getGrant(grantId);
  return grant !== undefined && grantStatusAt(grant, deps.clock()) === 'active';
}
