import { ServerCallContext } from '@a2a-js/sdk/server';
import type { GrantCaller } from '../../operations/callers/token-caller.ts';
import type { A2uiVersion } from './a2ui-parts.ts';
import type { Asked } from './skills.ts';

// What app.ts has established about a call before the SDK handles it, handed to the executor and
// the task store as the SDK's own call context (the SDK keeps the instance, subclass and all):
// the grant it runs under (also the SDK's user, the owner of its tasks), which A2UI version (if
// any) the caller asked for, and for a message send the skill and input, parsed once.

export class GrantCallContext extends ServerCallContext {
  readonly caller: GrantCaller;
  /** A send's skill and input as app.ts parsed them (after the grant's checks: WIRE-NOTES §2.7). */
  readonly asked: Asked | undefined;
  /** The A2UI version the request activated (a2ui-parts.ts), or none. */
  readonly a2ui: A2uiVersion | undefined;

  /**
   * What the skill threw when a direct answer ran it (direct-send.ts): the SDK then answers the
   * call as it answers an executor that throws, and the executor throws this again rather than
   * run the skill twice.
   */
  readonly thrown: { readonly error: unknown } | undefined;

  constructor(
    caller: GrantCaller,
    version: string,
    a2ui: A2uiVersion | undefined,
    asked: Asked | undefined,
    thrown?: { readonly error: unknown },
  ) {
    super({ user: { isAuthenticated: true, userName: caller.grant.grant_id }, requestedVersion: version });
    this.caller = caller;
    this.a2ui = a2ui;
    this.asked = asked;
    this.thrown = thrown;
  }

  /** The same call, its skill having thrown `error`. */
  failedWith(error: unknown): GrantCallContext {
    return new GrantCallContext(this.caller, this.requestedVersion ?? '', this.a2ui, this.asked, { error });
  }
}

/** The call's context as app.ts made it; undefined would be a call that skipped app.ts (a bug). */
export function grantContextOf(context: ServerCallContext | undefined): GrantCallContext | undefined {
  return context instanceof GrantCallContext ? context : undefined;
}
