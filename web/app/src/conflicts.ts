import { type Claim, qualifiedKey } from '../../../src/model/claim.ts';
import type { PendingProposal } from '../../../src/operations/inbox/inbox-state.ts';
import { valueKind } from '../../../src/surfaces/shared/value-kind.ts';

// When sources disagree about one preference (docs/web-app.md, "Conflicts"). The model keeps
// several claims under one key (a person's statement, an app's guess, an import each have their
// own claim id) and a suggestion an app made waits as a pending proposal aimed at the claim it
// would replace. A conflict is one key, in one situation (the same applicability: where and when
// it applies), where two or more of these say different values. Claims that apply in different
// situations are not in conflict: each says something about its own.

export type Side =
  | { readonly kind: 'claim'; readonly id: string; readonly claim: Claim }
  | { readonly kind: 'proposal'; readonly id: string; readonly proposal: PendingProposal };

export interface Conflict {
  /** The qualified key (`core` unprefixed). */
  readonly key: string;
  /** Stored claims first (as stored), then suggestions oldest first. */
  readonly sides: readonly Side[];
  /** The claim the person stated, if one side is theirs: suggestions show "now → suggested" against it. */
  readonly stated: Claim | undefined;
  /** Whether keeping both is possible: a list holds every name the sides say. */
  readonly canKeepBoth: boolean;
}

export function sideValue(side: Side): unknown {
  return side.kind === 'claim' ? side.claim.value : side.proposal.claim.value;
}

function situation(claim: Claim): string {
  const a = claim.applicability;
  return JSON.stringify([[...(a?.domains ?? [])].sort(), [...(a?.contexts ?? [])].sort()]);
}

/** Every conflict in the person's profile, in the order of each key's first claim or suggestion. */
export function findConflicts(claims: readonly Claim[], pending: readonly PendingProposal[]): Conflict[] {
  const groups = new Map<string, Side[]>();
  const add = (group: string, side: Side) => groups.set(group, [...(groups.get(group) ?? []), side]);
  const groupOf = new Map<string, string>();
  for (const claim of claims) {
    const group = `${qualifiedKey(claim)} ${situation(claim)}`;
    groupOf.set(claim.claim_id, group);
    add(group, { kind: 'claim', id: claim.claim_id, claim });
  }
  for (const p of pending) {
    // A suggestion belongs with the claim it would replace; else with its key and situation.
    const target = p.target_claim_id !== undefined ? groupOf.get(p.target_claim_id) : undefined;
    add(target ?? `${qualifiedKey(p.claim)} ${situation(p.claim)}`, {
      kind: 'proposal',
      id: p.proposal_id,
      proposal: p,
    });
  }
  const out: Conflict[] = [];
  for (const sides of groups.values()) {
    if (sides.length < 2) continue;
    const first = sideValue(sides[0] as Side);
    if (sides.every((s) => sameValue(sideValue(s), first))) continue;
    const claimOf = (s: Side) => (s.kind === 'claim' ? s.claim : s.proposal.claim);
    const any = claimOf(sides[0] as Side);
    const stated = sides.find(
      (s): s is Extract<Side, { kind: 'claim' }> =>
        s.kind === 'claim' && s.claim.source.kind === 'user_stated',
    );
    out.push({
      key: qualifiedKey(any),
      sides,
      stated: stated?.claim,
      canKeepBoth: valueKind(any)?.kind === 'list' && sides.every((s) => Array.isArray(sideValue(s))),
    });
  }
  return out;
}

/** Equal values: maps compare whatever the order of their names. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/** One action of the person's, as the review stream runs it (actions.ts). */
export interface ActionCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/**
 * What picking one side does: it is confirmed (a suggestion accepted replaces the claim it aimed
 * at, whose old value stays in its history), the other suggestions are turned down and the other
 * claims removed (their history stays). Confirming comes first, so a refusal leaves the rest.
 */
export function pickActions(conflict: Conflict, chosenId: string): ActionCall[] {
  const chosen = conflict.sides.find((s) => s.id === chosenId);
  if (chosen === undefined) return [];
  const decisions: Record<string, unknown>[] = [
    chosen.kind === 'claim'
      ? { claim_id: chosen.id, action: 'confirm' }
      : { proposal_id: chosen.id, action: 'confirm' },
  ];
  const kept = chosen.kind === 'claim' ? chosen.id : chosen.proposal.target_claim_id;
  for (const s of conflict.sides) {
    if (s.kind === 'proposal' && s !== chosen) decisions.push({ proposal_id: s.id, action: 'reject' });
  }
  return [{ name: 'confirm_updates', arguments: { decisions } }, ...removals(conflict, kept)];
}

/**
 * Keeping both (a list only): the person's own list of every name any side says, written over
 * the first stored claim; the suggestions are turned down and the other claims removed.
 */
export function keepBothActions(conflict: Conflict): ActionCall[] {
  if (!conflict.canKeepBoth) return [];
  const names = [...new Set(conflict.sides.flatMap((s) => sideValue(s) as string[]))];
  const base = conflict.sides[0] as Side;
  const claim = base.kind === 'claim' ? base.claim : base.proposal.claim;
  const keep = conflict.sides.find((s) => s.kind === 'claim')?.id;
  const rejects = conflict.sides
    .filter((s) => s.kind === 'proposal')
    .map((s) => ({ proposal_id: s.id, action: 'reject' }));
  return [
    {
      name: 'propose_updates',
      arguments: {
        claims: [
          {
            ...(keep !== undefined ? { claim_id: keep } : {}),
            type: claim.type,
            namespace: claim.namespace,
            key: claim.key,
            value: names,
            ...(claim.value_type !== undefined ? { value_type: claim.value_type } : {}),
            ...(claim.applicability !== undefined ? { applicability: claim.applicability } : {}),
            confidence: 1,
            source: { kind: 'user_stated', origin: 'web_app' },
          },
        ],
      },
    },
    ...(rejects.length > 0 ? [{ name: 'confirm_updates', arguments: { decisions: rejects } }] : []),
    ...removals(conflict, keep),
  ];
}

function removals(conflict: Conflict, kept: string | undefined): ActionCall[] {
  return conflict.sides
    .filter((s) => s.kind === 'claim' && s.id !== kept)
    .map((s) => ({ name: 'delete_claim', arguments: { claim_id: s.id } }));
}
