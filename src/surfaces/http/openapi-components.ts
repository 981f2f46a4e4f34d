import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { AuditEvent } from '../../model/audit-event.ts';
import { Claim } from '../../model/claim.ts';
import { ConsentGrant } from '../../model/consent-grant.ts';
import { ContextModifier } from '../../model/context-modifier.ts';
import { DerivedView } from '../../model/derived-view.ts';
import { DiscoveryCard } from '../../model/discovery-card.ts';
import { EffectiveProfile } from '../../model/effective-profile.ts';
import { EvidenceRef } from '../../model/evidence-ref.ts';
import { ExtensionDescriptor } from '../../model/extension-descriptor.ts';
import { Profile } from '../../model/profile.ts';
import { ProfileSummary } from '../../model/summary.ts';
import { Tokens } from '../../operations/catalog/consent.ts';
import { Review } from '../../operations/catalog/reviews.ts';
import { GrantedAccessList } from '../../operations/grants/list-granted-access.ts';
import { DeletionResult } from '../../operations/writeback/delete.ts';
import { DecisionOutcome, ProposalOutcome, WritebackResponse } from '../../operations/writeback/envelope.ts';
import { DiffResponse, HistoryPage } from '../../operations/writeback/history.ts';
import { SensitiveKeys } from '../../operations/writeback/sensitive-keys.ts';

// Named schemas of the OpenAPI document (issue 28: a generated client gets a `Claim`, an
// `EffectiveProfile`, a `ConsentGrant` type, not anonymous shapes). The PPX objects and the
// shared answers are named here once; zod writes each as a `$def` wherever it appears, and
// `Components` moves those into `components.schemas` and points the operations at them. An
// operation's own request or answer that has no name here is named after the operation
// (`GetProfileSummaryResponse`, `ProposeUpdatesRequest`). Input and output forms of one schema
// that differ (defaults, optional members) are two components: `Claim` and `ClaimInput`.

const NAMED: readonly (readonly [z.ZodType, string])[] = [
  [Profile, 'Profile'],
  [Claim, 'Claim'],
  [ContextModifier, 'ContextModifier'],
  [EvidenceRef, 'EvidenceRef'],
  [ConsentGrant, 'ConsentGrant'],
  [DerivedView, 'DerivedView'],
  [ExtensionDescriptor, 'ExtensionDescriptor'],
  [DiscoveryCard, 'DiscoveryCard'],
  [EffectiveProfile, 'EffectiveProfile'],
  [ProfileSummary, 'ProfileSummary'],
  [AuditEvent, 'AuditEvent'],
  [ProposalOutcome, 'ProposalOutcome'],
  [DecisionOutcome, 'DecisionOutcome'],
  [WritebackResponse, 'WritebackResponse'],
  [HistoryPage, 'HistoryPage'],
  [DiffResponse, 'DiffResponse'],
  [GrantedAccessList, 'GrantedAccessList'],
  [DeletionResult, 'DeletionResult'],
  [SensitiveKeys, 'SensitiveKeys'],
  [Tokens, 'Tokens'],
  [Review, 'CrossDomainReview'],
];

const registry = z.registry<{ id: string }>();
for (const [schema, id] of NAMED) registry.add(schema, { id });

type Json = Record<string, unknown>;

/** The document's `components.schemas`, filled as the operations are described (answers first). */
export class Components {
  readonly schemas: Record<string, unknown> = {};

  /**
   * The schema of an operation's body or answer: a `$ref` to a named component (the schema's own
   * name, or `fallback` for a shape without one), its named parts added to the components.
   */
  ref(schema: z.ZodType, io: 'input' | 'output', fallback: string): Json {
    const generated = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      metadata: registry,
    }) as Json;
    const { $schema: _dialect, $defs, ...root } = generated;
    const defs = ($defs ?? {}) as Record<string, Json>;
    // Each def's component name: its own, or "<name>Input" when its input form differs from the
    // answer form already named so (answers are described first).
    const names = new Map(Object.keys(defs).map((n) => [n, n]));
    for (const [name, def] of Object.entries(defs)) names.set(name, this.#free(name, relink(def, names), io));
    for (const [name, def] of Object.entries(defs)) this.schemas[names.get(name)!] = relink(def, names);
    const top = relink(root, names);
    if (typeof top['$ref'] === 'string' && Object.keys(top).length === 1) return top;
    const named = this.#free(fallback, top, io);
    this.schemas[named] = top;
    return { $ref: `#/components/schemas/${named}` };
  }

  /** `name` when free or holding this very schema; else the input form's own name. */
  #free(name: string, schema: Json, io: 'input' | 'output'): string {
    const held = this.schemas[name];
    if (held === undefined || isDeepStrictEqual(held, schema)) return name;
    const other = `${name}${io === 'input' ? 'Input' : 'Output'}`;
    const heldOther = this.schemas[other];
    if (heldOther === undefined || isDeepStrictEqual(heldOther, schema)) return other;
    throw new Error(`OpenAPI: two different schemas are both named ${name}`);
  }
}

/** The schema with its `#/$defs/<name>` pointers turned to the named components. */
function relink(value: Json, names: ReadonlyMap<string, string>): Json {
  return JSON.parse(
    JSON.stringify(value).replace(/"#\/\$defs\/([A-Za-z0-9_]+)"/g, (_, name: string) =>
      JSON.stringify(`#/components/schemas/${names.get(name) ?? name}`),
    ),
  ) as Json;
}
