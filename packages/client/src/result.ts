import type { components } from './generated/openapi.ts';

/**
 * A PPX error code, as the provider sends it (`Error.error` of the OpenAPI document), and the MCP
 * surface's `package_child_inactive` (a grant package's child the person withdrew).
 */
export type PpxCode = components['schemas']['Error']['error'] | 'package_child_inactive';

/**
 * Codes this library adds for what never reached a provider's answer: the network failed, the
 * answer was not what the wire promises, the person did not decide in time, or the redirect back
 * did not belong to this request.
 */
export type ClientCode = 'network_error' | 'invalid_response' | 'decision_timeout' | 'state_mismatch';

export interface ClientError {
  readonly code: PpxCode | ClientCode;
  readonly description: string;
  /** The HTTP status of the answer, when there was one. */
  readonly status?: number;
  readonly grantId?: string;
  readonly details?: Record<string, unknown>;
}

/** Errors are values: every call answers `{ok: true, value}` or `{ok: false, error}`. */
export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ClientError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

export const fail = <T = never>(
  code: ClientError['code'],
  description: string,
  extra: Omit<ClientError, 'code' | 'description'> = {},
): Result<T> => ({ ok: false, error: { code, description, ...extra } });
