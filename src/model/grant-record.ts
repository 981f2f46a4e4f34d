import type { AccessMode, ConsentGrant } from './consent-grant.ts';

/** A grant as stored: the published object plus how it may be used. `grantee_id` is the client id. */
export interface GrantRecord extends ConsentGrant {
  readonly profile_id: string;
  readonly access_mode: AccessMode;
}
