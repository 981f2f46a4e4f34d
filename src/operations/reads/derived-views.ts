import { type Claim, normalizeKey } from '../../model/claim.ts';
import type { ContextModifier, ResolutionContext } from '../../model/context-modifier.ts';
import type { DerivedView } from '../../model/derived-view.ts';
import { fail, ok, type PpxErrorCode, type Result } from '../../model/errors.ts';
import type { GrantRecord } from '../../model/grant-record.ts';
import { newId } from '../../model/ids.ts';
import { parseInput } from '../../model/validate.ts';
import type { Purpose } from '../../model/vocabulary.ts';
import type { AccessRequest } from '../../policy/scope.ts';
import { basisKey, readsKey } from '../../resolve/derived-views/contract.ts';
import {
  type DerivedViewKind,
  derivedViewKind,
  derivedViewKindNames,
  type ViewRequest,
} from '../../resolve/derived-views/index.ts';
import { resolveEffectiveProfile } from '../../resolve/effective.ts';
import { recordCallerAudit } from '../audit/audit-log.ts';
import { type Caller, subjectIdFor } from '../callers/caller.ts';
import type { Deps } from '../deps.ts';
import { loadVisibleProfile, type VisibleProfile } from './visible-profile.ts';

// POST /v1/derived-views/{kind} (SPEC §4.7, §5.5; docs/derived-views.md). A use case as the list
// of its checks: the kind exists; the caller holds a grant; the body fits the kind; the grant
// allows reading for one of the kind's purposes; for compatibility, the counterpart grant passes
// the same policy. Claims come only from loadVisibleProfile, so scope, cross-domain and
// lifecycle rules all apply before a kind sees anything.

/** How long a view stays valid, at most; never past a grant it was computed under. */
const VIEW_TTL_MS = 3_600_000;

type GrantCaller = Extract<Caller, { kind: 'grant' }>;

/** The failures that mean "this grant authorizes nothing now", by the state they name. */
const DEAD_GRANT: Partial<Record<PpxErrorCode, string>> = {
  grant_revoked: 'revoked',
  grant_expired: 'expired',
  invalid_token: 'not active',
};

export async function createDerivedView(
  deps: Deps,
  caller: Caller,
  kindName: string,
  input: unknown,
): Promise<Result<DerivedView>> {
  const kind = derivedViewKind(kindName);
  if (!kind) {
    const kinds = derivedViewKindNames();
    return fail('not_found', `no derived-view kind "${kindName}"; kinds: ${kinds.join(', ')}`, {
      details: { kinds },
    });
  }
  if (caller.kind !== 'grant') return subjectRefused();
  const body = parseInput(kind.body, input, 'the request body');
  if (!body.ok) return body;

  const visible = await loadVisibleProfile(
    deps,
    caller,
    accessFor(kind, caller.grant, body.value),
    'derived_view',
  );
  if (!visible.ok) return visible;
  let counterpart: { caller: GrantCaller; visible: VisibleProfile } | undefined;
  if (body.value.counterpart_grant_id !== undefined) {
    const loaded = await loadCounterpart(deps, caller, kind, body.value.counterpart_grant_id);
    if (!loaded.ok) return loaded;
    counterpart = loaded.value;
  }

  const now = deps.clock();
  const context = body.value.context ?? {};
  const output = kind.compute({
    claims: inputsOf(kind, visible.value, context, now),
    counterpart: counterpart && inputsOf(kind, counterpart.visible, context, now),
    // The kind reads target keys in either spelling (match.ts turns them into basis keys).
    ...(body.value.target !== undefined ? { target: body.value.target } : {}),
    context,
    now,
  });

  const viewId = newId('view');
  // Audit keys use the grant's naming (core unprefixed), like every other read.
  const keys = output.basis.map(normalizeKey);
  const detail = `${kind.kind} view ${viewId}`;
  await recordCallerAudit(
    deps,
    caller,
    visible.value.subjectId,
    { action: 'derived_view', claimKeys: keys, detail },
    now,
  );
  if (counterpart) {
    const c = counterpart;
    await recordCallerAudit(
      deps,
      c.caller,
      c.visible.subjectId,
      { action: 'derived_view', claimKeys: keys, detail },
      now,
    );
  }
  return ok({
    view_id: viewId,
    view_kind: kind.kind,
    subject_id: subjectIdFor(deps, caller, visible.value.subjectId),
    grantee_id: caller.clientId,
    created_at: now.toISOString(),
    expires_at: viewExpiry(now, [caller.grant, counterpart?.caller.grant]).toISOString(),
    signals: output.signals,
    basis: output.basis,
    explanations: output.explanations,
    warnings: output.warnings,
  });
}

/** A derived view is computed for a grantee; the subject reads their own claims directly. */
function subjectRefused() {
  return fail(
    'insufficient_scope',
    'derived views are computed for a grantee under a grant: call with a grant token (the subject reads their claims directly)',
  );
}

/**
 * The access a kind needs: `query` (a `read` grant also permits it: a view is less than a full
 * read) for one of the kind's purposes the grant holds, or the first one when it holds none so
 * evaluateAccess refuses it by name. A match target narrows the request to its keys, so a
 * target key outside the grant is refused before anything is read (SPEC §10 MUST NOT 1).
 */
function accessFor(kind: DerivedViewKind, grant: GrantRecord, body: ViewRequest): AccessRequest {
  const purpose: Purpose | undefined =
    kind.purposes.find((p) => grant.purposes.includes(p)) ?? kind.purposes[0];
  const keys = body.target ? Object.keys(body.target).map(normalizeKey) : undefined;
  return {
    operation: 'query',
    alsoPermittedBy: ['read'],
    ...(purpose !== undefined ? { purpose } : {}),
    ...(keys !== undefined ? { keys } : {}),
  };
}

/**
 * The second subject of a compatibility view (WIRE-NOTES §6): a grant held by the same grantee,
 * for another subject, passing the same policy (active, `query`/`read`, purpose `matching`).
 * Its claims are loaded through the one read path under that grant. A grant that does not exist
 * and one of another client get the same 404, so neither is revealed.
 */
async function loadCounterpart(
  deps: Deps,
  caller: GrantCaller,
  kind: DerivedViewKind,
  grantId: string,
): Promise<Result<{ caller: GrantCaller; visible: VisibleProfile }>> {
  const grant = await deps.store.getGrant(grantId);
  if (!grant || grant.grantee_id !== caller.clientId) {
    return fail('not_found', `no grant "${grantId}" held by this client`);
  }
  if (grant.subject_id === caller.grant.subject_id) {
    return fail(
      'invalid_request',
      'counterpart_grant_id: compatibility compares two different subjects; this grant is for the same subject',
    );
  }
  const counterpartCaller: GrantCaller = { kind: 'grant', clientId: caller.clientId, grant };
  const visible = await loadVisibleProfile(
    deps,
    counterpartCaller,
    accessFor(kind, grant, {}),
    'derived_view',
  );
  if (!visible.ok) {
    const e = visible.error;
    // The caller's own token is fine, so a dead counterpart grant is not a 401 (which would tell
    // the client to re-authenticate): it is a 403 naming the counterpart's state.
    const state = DEAD_GRANT[e.code];
    if (state !== undefined) {
      return fail('insufficient_scope', `the counterpart grant is ${state}`, {
        details: { counterpart_grant_id: grantId, counterpart_status: state },
      });
    }
    return fail(e.code, `counterpart grant: ${e.description}`, {
      details: { counterpart_grant_id: grantId, ...e.details },
    });
  }
  return ok({ caller: counterpartCaller, visible: visible.value });
}

/** The visible claims, resolved for the context, restricted to the keys the kind reads. */
function inputsOf(
  kind: DerivedViewKind,
  visible: VisibleProfile,
  context: ResolutionContext,
  now: Date,
): Claim[] {
  const modifiers: readonly ContextModifier[] = visible.modifiers;
  const { claims } = resolveEffectiveProfile({ claims: visible.claims, modifiers, context, now });
  return claims.filter((c) => readsKey(kind, basisKey(c)));
}

/** One hour from now, and never after any grant the view was computed under expires. */
function viewExpiry(now: Date, grants: readonly (GrantRecord | undefined)[]): Date {
  let end = now.getTime() + VIEW_TTL_MS;
  for (const g of grants) {
    if (g?.expires_at !== undefined) end = Math.min(end, Date.parse(g.expires_at));
  }
  return new Date(end);
}
