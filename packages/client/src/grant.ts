import type { PpxClient } from './client.ts';
import { bodyOf, errorOf } from './http.ts';
import { ok, type Result } from './result.ts';
import type {
  Context,
  DerivedView,
  EffectiveProfile,
  EffectiveRequest,
  ProfileSummary,
  ProposalOutcome,
  ProposedClaim,
  Purpose,
  QueryRequest,
  WritebackResponse,
} from './types.ts';

/** What became of a proposal: every claim applied, some queued for the person, or refused by the grant. */
export type ProposeResult =
  | {
      readonly outcome: 'applied';
      readonly proposals: readonly ProposalOutcome[];
      readonly profile: WritebackResponse;
    }
  | {
      readonly outcome: 'queued_for_review';
      readonly proposals: readonly ProposalOutcome[];
      readonly profile: WritebackResponse;
    }
  | { readonly outcome: 'refused'; readonly reason: string };

/** The reads and writes of one grant, through the client's tokens. */
export class Grant {
  readonly #client: PpxClient;
  readonly grantId: string;

  constructor(client: PpxClient, grantId: string) {
    this.#client = client;
    this.grantId = grantId;
  }

  /** The redacted summary: keys, namespaces, provenance, no values. */
  summary(): Promise<Result<ProfileSummary>> {
    return this.#call<ProfileSummary>('GET', '/v1/profile/summary');
  }

  /** Claims filtered by namespace, key, provenance or confidence. */
  query(query: QueryRequest = {}): Promise<Result<EffectiveProfile>> {
    return this.#call<EffectiveProfile>('POST', '/v1/profile/query', query);
  }

  /** The effective profile under a context (`{occasion: "evening"}`): context modifiers applied. */
  effective(
    context?: Context,
    options: Omit<EffectiveRequest, 'context'> = {},
  ): Promise<Result<EffectiveProfile>> {
    return this.#call<EffectiveProfile>('POST', '/v1/profile/effective', {
      ...options,
      ...(context !== undefined ? { context } : {}),
    });
  }

  /**
   * Proposes claims (write-back). `refused` is the grant's write-back policy saying no
   * (`writeback_forbidden`); every other failure is an error value.
   */
  async propose(claims: readonly ProposedClaim[], purpose?: Purpose): Promise<Result<ProposeResult>> {
    const r = await this.#client.authorized(this.grantId, 'POST', '/v1/profile/propose-updates', {
      claims,
      ...(purpose !== undefined ? { purpose } : {}),
    });
    if (!r.ok) return r;
    if (r.value.status === 403 && errorOf(r.value).code === 'writeback_forbidden') {
      return ok({ outcome: 'refused', reason: errorOf(r.value).description });
    }
    const body = bodyOf<WritebackResponse>(r.value);
    if (!body.ok) return body;
    const proposals = body.value.proposals ?? [];
    const applied = proposals.every((p) => p.status === 'applied' || p.status === 'confirmed');
    return ok({ outcome: applied ? 'applied' : 'queued_for_review', proposals, profile: body.value });
  }

  /** Per-key closeness of the visible claims to `target` (derived view). */
  match(target: Record<string, number>, context?: Context): Promise<Result<DerivedView>> {
    return this.#call<DerivedView>('POST', '/v1/derived-views/match', {
      target,
      ...(context ? { context } : {}),
    });
  }

  /** Per-trait alignment with the subject of another grant this client holds (purpose `matching`). */
  compatibility(counterpartGrantId: string, context?: Context): Promise<Result<DerivedView>> {
    return this.#call<DerivedView>('POST', '/v1/derived-views/compatibility', {
      counterpart_grant_id: counterpartGrantId,
      ...(context ? { context } : {}),
    });
  }

  /** Confidence-weighted signals of the visible normalized claims. */
  recommendationBasis(context?: Context): Promise<Result<DerivedView>> {
    return this.#call<DerivedView>(
      'POST',
      '/v1/derived-views/recommendation_basis',
      context ? { context } : {},
    );
  }

  async #call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result<T>> {
    const r = await this.#client.authorized(this.grantId, method, path, body);
    return r.ok ? bodyOf<T>(r.value) : r;
  }
}
