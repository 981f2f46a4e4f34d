import { z } from 'zod';
import { AuditAction, AuditEvent } from '../../model/audit-event.ts';
import { DiscoveryCard } from '../../model/discovery-card.ts';
import { ok } from '../../model/errors.ts';
import { ExtensionDescriptor } from '../../model/extension-descriptor.ts';
import { DateTime } from '../../model/vocabulary.ts';
import { listAuditEvents } from '../audit/audit-log.ts';
import { discoveryCard, listExtensions } from '../provider/discovery.ts';
import { defineOperation } from './contract.ts';
import { EMPTY_INPUT } from './shared.ts';

// What the provider is (SPEC §7) and what it supports, and the audit log (SPEC §10).

export const getDiscoveryCardOperation = defineOperation({
  name: 'get_discovery_card',
  title: 'Discovery card',
  summary: 'Provider discovery card (SPEC §7)',
  caller: 'public',
  audit: [],
  input: EMPTY_INPUT,
  output: DiscoveryCard,
  follows: { object: 'discovery-card' },
  errors: [],
  run: async (deps) => ok(discoveryCard(deps.provider)),
  http: { method: 'GET', path: '/.well-known/ppx-card.json', tag: 'discovery', input: 'none' },
});

export const listExtensionsOperation = defineOperation({
  name: 'list_extensions',
  title: 'Extensions',
  summary: 'Supported extension vocabularies with versions',
  caller: 'public',
  audit: [],
  input: EMPTY_INPUT,
  output: z.strictObject({ extensions: z.array(ExtensionDescriptor) }),
  follows: { object: 'extension-descriptor', at: 'extensions' },
  errors: [],
  run: async () => ok(listExtensions()),
  http: { method: 'GET', path: '/v1/extensions', tag: 'extensions', input: 'none' },
});

const AuditQuery = z.strictObject({
  grant_id: z.string().max(300).optional(),
  action: AuditAction.optional(),
  kind: AuditAction.optional(),
  grantee: z.string().min(1).max(300).optional(),
  since: DateTime.optional(),
  until: DateTime.optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  order: z.enum(['oldest', 'newest']).optional(),
});

export const listAuditEventsOperation = defineOperation({
  name: 'list_audit_events',
  title: 'Audit log',
  summary: "Audit log: all of the subject's events, or a grantee's own",
  description:
    'Oldest first, or newest first with `order=newest`. Each listing reads a bounded number of ' +
    'events, so a page may hold fewer than `limit` (even none) and still carry `next_cursor`: ' +
    'follow it until it is absent.',
  caller: 'caller',
  // Reading the log is not itself logged.
  audit: [],
  input: AuditQuery,
  output: z.strictObject({ events: z.array(AuditEvent), next_cursor: z.string().optional() }),
  errors: ['invalid_request'],
  run: (deps, caller, input) => listAuditEvents(deps, caller, input),
  agui: { writes: false },
  // A page's events share their claim-key lists (listAuditEvents), each serialized once.
  http: { method: 'GET', path: '/v1/audit/events', tag: 'audit', input: 'query', answerDepth: 3 },
});
