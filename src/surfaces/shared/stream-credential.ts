import type { PpxFailure } from '../../model/errors.ts';
import { sessionFrom } from '../../operations/accounts/subjects-and-sessions.ts';
import { authenticate } from '../../operations/callers/caller.ts';
import { grantIsLive } from '../../operations/callers/grant-live.ts';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { Deps } from '../../operations/deps.ts';

// A stream is many answers to one request, so what allowed the request must still allow each
// answer (issue 22, item 9; issue 13, item 3): before each event a stream checks again what it
// was opened with, and ends when that is gone. A request checks its credential once; a stream
// checks it as often as it speaks.

/** What a stream was opened with. */
export type StreamCredential =
  /** A bearer token for the PPX API (the person's own app or script): verified again, expiry included. */
  | { readonly kind: 'bearer'; readonly token: string }
  /** The person's signed-in browser session (the cookie's secret): ended by signing out, or expiry. */
  | { readonly kind: 'session'; readonly secret: string }
  /** The grant an A2A task stream runs under: ended by revocation, or expiry. */
  | { readonly kind: 'grant'; readonly caller: GrantCaller };

/** Why the stream must end now, in words for the person or app reading it; undefined: it goes on. */
export async function credentialEnded(
  deps: Deps,
  credential: StreamCredential,
): Promise<PpxFailure | undefined> {
  switch (credential.kind) {
    case 'bearer': {
      const caller = await authenticate(deps, credential.token);
      if (caller.ok) return undefined;
      return {
        code: 'invalid_token',
        description:
          'the access token this live view was opened with has expired or is no longer valid, so it stopped; open it again with a current token',
      };
    }
    case 'session':
      if ((await sessionFrom(deps, credential.secret)) !== undefined) return undefined;
      return {
        code: 'invalid_token',
        description:
          'you signed out (or your sign-in ran out), so this live view stopped; sign in again to see your profile',
      };
    case 'grant':
      if (await grantIsLive(deps, credential.caller.grant.grant_id)) return undefined;
      return { code: 'invalid_token', description: 'the grant this stream runs under has ended' };
  }
}
