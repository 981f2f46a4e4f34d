import { fail, ok, type Result } from '../../model/errors.ts';
import { MS_PER_DAY } from '../../model/vocabulary.ts';
import type { Deps } from '../deps.ts';
import { createGrant, type GrantDraft } from '../grants/consent-grants.ts';
import { issueGrantToken, issueSubjectToken } from '../tokens/issue-tokens.ts';
import { DEMO_SUBJECT } from './demo-profile.ts';

const DAY = MS_PER_DAY;

/**
 * Fresh grants and tokens for the public PPX conformance suite, as environment variables
 * (issue 3 item 7). Every call creates new grants, so runs never share state.
 */
export async function conformanceEnv(
  deps: Deps,
  options: { subjectId?: string; clientId?: string } = {},
): Promise<Result<Record<string, string>>> {
  const subject = options.subjectId ?? DEMO_SUBJECT;
  const client = options.clientId ?? 'fragrance-demo';
  if (!(await deps.store.getProfileBySubject(subject))) {
    return fail('not_found', `subject "${subject}" has no profile; run \`ppx seed --demo\` first`);
  }
  if (!(await deps.store.getClient(client))) {
    return fail('unknown_client', `client "${client}" is not registered; run \`ppx seed --demo\` first`);
  }
  const now = deps.clock().getTime();
  const base: GrantDraft = {
    subject_id: subject,
    client_id: client,
    purposes: ['recommendation', 'propose_update'],
    allowed_domains: ['fragrance'],
    allowed_namespaces: ['core', 'fragrance'],
    allowed_claim_keys: [
      'novelty_tolerance',
      'sensory_intensity_preference',
      'fragrance.family_preference',
      'fragrance.intensity_preference',
      'fragrance.projection_tolerance',
      'fragrance.sweetness_preference',
    ],
    allowed_operations: ['read', 'query', 'propose_update'],
    cross_domain_transfer: 'deny',
    writeback_policy: 'review_required',
    expires_at: new Date(now + 30 * DAY).toISOString(),
  };
  const grantToken = async (draft: GrantDraft) => {
    const grant = await createGrant(deps, draft, 'operator');
    if (!grant.ok) throw new Error(grant.error.description);
    return { grantId: grant.value.grant_id, token: (await issueGrantToken(deps, grant.value)).access_token };
  };

  const main = await grantToken(base);
  // Created already expired: the token is genuine, the grant authorizes nothing.
  const expired = await grantToken({ ...base, expires_at: new Date(now - DAY).toISOString() });
  const revocable = await grantToken(base);
  const denyCrossDomain = await grantToken({
    ...base,
    allowed_domains: ['fragrance'],
    cross_domain_transfer: 'deny',
  });
  const forbiddenWriteback = await grantToken({ ...base, writeback_policy: 'forbidden' });
  const owner = (await issueSubjectToken(deps, subject)).access_token;
  return ok({
    PPX_PROVIDER_URL: deps.provider.baseUrl,
    PPX_PROVIDER_TOKEN: main.token,
    PPX_EXPIRED_TOKEN: expired.token,
    PPX_REVOCABLE_GRANT_ID: revocable.grantId,
    PPX_REVOCABLE_TOKEN: revocable.token,
    PPX_REVOKE_TOKEN: owner,
    PPX_DENY_CROSSDOMAIN_TOKEN: denyCrossDomain.token,
    PPX_FORBIDDEN_WRITEBACK_TOKEN: forbiddenWriteback.token,
    PPX_CLIENT_ID: client,
    PPX_SUBJECT_ID: subject,
    PPX_USER_TOKEN: owner,
  });
}
