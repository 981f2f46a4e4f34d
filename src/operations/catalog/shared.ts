import { z } from 'zod';
import type { PpxErrorCode } from '../../model/errors.ts';

// What several catalog entries share.

/** The input of an operation that takes none: an empty object, and nothing else. */
export const EMPTY_INPUT = z.strictObject({});

/** The failures of a read under a grant: the grant's scope, and the request's own filters. */
export const READ_ERRORS: readonly PpxErrorCode[] = [
  'invalid_request',
  'insufficient_scope',
  'cross_domain_denied',
  'unknown_namespace',
  'not_found',
];

/** The failures of an operation only the subject may call. */
export const SUBJECT_ERRORS: readonly PpxErrorCode[] = ['invalid_request', 'access_denied', 'not_found'];
