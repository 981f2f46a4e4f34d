import type { AuditAction, AuditEvent } from '../../model/audit-event.ts';
import type { Claim } from '../../model/claim.ts';
import type { ClientRecord } from '../../model/client.ts';
import { SUPPORTED_EXTENSIONS } from '../../model/extensions/index.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { newTimeOrderedId } from '../../model/ids.ts';
import type { Deps } from '../deps.ts';
import { inTransaction } from '../transaction.ts';

// `ppx seed --scale` (issue 14, item 5): a store of many people, in one process, to measure how
// the provider's cost grows with its work. Each subject gets a deterministic profile (its claims
// drawn from the registered numeric keys of core, fragrance and travel, as the bench fixture's),
// grants to a pool of apps, and a history of reads in the audit log. Written straight through the
// store in batches of their own transactions (one import per subject would pay a Node start
// each): not the operations' path, so no change events (nobody follows a seeded store) and no
// audit of the seeding itself.

export interface ScalePlan {
  readonly subjects: number;
  readonly claimsPerSubject: number;
  readonly grantsPerSubject: number;
  readonly auditPerSubject: number;
  /** The index of the first subject: a store grows by seeding again from where it stopped. */
  readonly firstSubject: number;
}

export const SCALE_DEFAULTS = { claimsPerSubject: 200, grantsPerSubject: 20, auditPerSubject: 200 } as const;

export interface ScaleReport {
  readonly subjects: number;
  readonly claims: number;
  readonly grants: number;
  readonly auditEvents: number;
  readonly seconds: number;
}

/** Subjects per transaction: big enough to amortize a commit, small enough to let others in. */
const BATCH = 25;
const APPS = 50;
const NAMESPACES = ['core', 'fragrance', 'travel'] as const;
const READS: readonly AuditAction[] = ['read', 'effective', 'query', 'summary', 'derived_view'];

export function scaleSubjectId(i: number): string {
  return `did:example:scale-${String(i).padStart(7, '0')}`;
}

function scaleProfileId(i: number): string {
  return `ppx:profile:scale-${String(i).padStart(7, '0')}`;
}

const SCALE_APP_PREFIX = 'scale-app-';

export async function seedScale(
  deps: Deps,
  plan: ScalePlan,
  progress: (subjectsDone: number) => void = () => undefined,
): Promise<ScaleReport> {
  const started = performance.now();
  const at = deps.clock().toISOString();
  await inTransaction(deps, async (tx) => {
    for (let a = 0; a < APPS; a++) {
      if (await tx.store.getClient(`${SCALE_APP_PREFIX}${a}`)) continue;
      await tx.store.putClient(appRecord(a, at));
    }
  });
  const keys = NAMESPACES.map((ns) => [ns, numericKeys(ns)] as const);
  let grants = 0;
  let audit = 0;
  const end = plan.firstSubject + plan.subjects;
  for (let from = plan.firstSubject; from < end; from += BATCH) {
    const to = Math.min(end, from + BATCH);
    const events: AuditEvent[] = [];
    await inTransaction(deps, async (tx) => {
      for (let i = from; i < to; i++) {
        const profileId = scaleProfileId(i);
        const subjectId = scaleSubjectId(i);
        await tx.store.insertProfile({
          profile_id: profileId,
          subject_id: subjectId,
          created_at: at,
          updated_at: at,
        });
        await tx.store.putClaims(profileId, claimsOf(i, plan.claimsPerSubject, keys, at));
        const mine: string[] = [];
        for (let g = 0; g < plan.grantsPerSubject; g++) {
          const grant = grantOf(i, g, subjectId, profileId, at);
          await tx.store.insertGrant(grant);
          mine.push(grant.grant_id);
        }
        grants += mine.length;
        const base = Date.parse(at);
        for (let e = 0; e < plan.auditPerSubject; e++) {
          const g = e % Math.max(1, mine.length);
          const when = base - (plan.auditPerSubject - e) * 60_000;
          events.push({
            event_id: newTimeOrderedId('event', when),
            at: new Date(when).toISOString(),
            subject_id: subjectId,
            actor: { kind: 'grantee', id: `${SCALE_APP_PREFIX}${(i + g) % APPS}` },
            ...(mine[g] ? { grant_id: mine[g] } : {}),
            action: READS[e % READS.length]!,
            claim_keys: [],
            outcome: 'ok',
          });
        }
      }
    });
    if (events.length > 0) await deps.store.appendAudit(events);
    audit += events.length;
    progress(to - plan.firstSubject);
  }
  return {
    subjects: plan.subjects,
    claims: plan.subjects * plan.claimsPerSubject,
    grants,
    auditEvents: audit,
    seconds: (performance.now() - started) / 1000,
  };
}

function appRecord(a: number, at: string): ClientRecord {
  return {
    client_id: `${SCALE_APP_PREFIX}${a}`,
    name: `Scale app ${a}`,
    redirect_uris: [],
    kind: 'public',
    created_at: at,
    source: 'operator',
  };
}

function grantOf(i: number, g: number, subjectId: string, profileId: string, at: string): GrantRecord {
  return {
    grant_id: `ppx:grant:scale-${String(i).padStart(7, '0')}-${String(g).padStart(3, '0')}`,
    subject_id: subjectId,
    grantee_id: `${SCALE_APP_PREFIX}${(i + g) % APPS}`,
    status: 'active',
    granted_at: at,
    expires_at: '2099-01-01T00:00:00.000Z',
    purposes: ['recommendation'],
    allowed_domains: [...NAMESPACES],
    allowed_namespaces: [...NAMESPACES],
    allowed_operations: ['read', 'query'],
    cross_domain_transfer: 'deny',
    writeback_policy: 'review_required',
    profile_id: profileId,
    access_mode: 'continuous',
  };
}

function numericKeys(namespace: string): { key: string; map: boolean }[] {
  const ext = SUPPORTED_EXTENSIONS.find((e) => e.namespace === namespace);
  if (!ext) throw new Error(`scale seed: namespace ${namespace} is not registered`);
  return ext.keys
    .filter(
      (k) =>
        (k.value_type === 'float' && k.units === 'normalized_0_1') || k.value_type === 'map<string,float>',
    )
    .map((k) => ({ key: k.key, map: k.value_type === 'map<string,float>' }));
}

/** A subject's claims: 40 % core, 35 % fragrance, the rest travel; values from its own seed. */
function claimsOf(
  i: number,
  total: number,
  keys: readonly (readonly [string, { key: string; map: boolean }[]])[],
  at: string,
): Claim[] {
  let state = (i * 2_654_435_761 + 1) >>> 0;
  const unit = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return Math.round((state / 2 ** 32) * 1000) / 1000;
  };
  const counts = [Math.round(total * 0.4), Math.round(total * 0.35)];
  counts.push(total - counts[0]! - counts[1]!);
  const claims: Claim[] = [];
  const sid = String(i).padStart(7, '0');
  keys.forEach(([namespace, defs], n) => {
    for (let c = 0; c < counts[n]!; c++) {
      const def = defs[c % defs.length]!;
      const stated = c % 3 === 0;
      claims.push({
        claim_id: `ppx:claim:scale-${sid}-${namespace}-${String(c).padStart(3, '0')}`,
        type: 'preference',
        namespace,
        key: def.key,
        value: def.map ? { woody: unit(), citrus: unit(), floral: unit() } : unit(),
        value_type: def.map ? 'map<string,float>' : 'float',
        ...(def.map ? {} : { units: 'normalized_0_1' }),
        confidence: Math.max(0.05, unit()),
        source: stated ? { kind: 'user_stated' } : { kind: 'observed', origin: 'in_app_session' },
        lifecycle: { last_confirmed_at: at },
      });
    }
  });
  return claims;
}
