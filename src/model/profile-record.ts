import type { DefaultPolicy } from './profile.ts';

// A profile as the provider keeps it: who owns it, and when it last changed.

export interface ProfileRecord {
  readonly profile_id: string;
  /** The internal subject id. Never shown to a grantee as it is (see auth/pairwise). */
  readonly subject_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly default_policy?: DefaultPolicy;
}
