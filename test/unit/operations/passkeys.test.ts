import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ExtensionDescriptor } from '../../../src/model/extension-descriptor.ts';
import {
  confirmWithPassword,
  noteFreshSignIn,
  signedInFreshly,
} from '../../../src/operations/accounts/fresh-sign-in.ts';
import { createPasskeyAccount } from '../../../src/operations/accounts/passkey-accounts.ts';
import {
  authenticationOptions,
  createSetupLink,
  registrationOptions,
  removePasskey,
  setPasswordSignIn,
  setupLinkIsLive,
  signInMethods,
  verifyAuthentication,
  verifyRegistration,
} from '../../../src/operations/accounts/passkeys.ts';
import { createSubject } from '../../../src/operations/accounts/subjects-and-sessions.ts';
import { freshSignInFor, sensitivePartsOf } from '../../../src/operations/consent/fresh-approval.ts';
import type { Deps } from '../../../src/operations/deps.ts';
import { setSensitiveKeys } from '../../../src/operations/writeback/sensitive-keys.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';

// The passkey operations (docs/passkeys.md) with a software authenticator: a challenge is used
// once and lives five minutes, bound to the browser that asked; a counter that does not move
// forward is refused; password sign-in goes off only with a passkey and the last way in stays;
// a one-time link works once; a fresh sign-in lasts five minutes and sensitive approvals need it.

const ORIGIN = 'http://localhost:4100';

describe('passkey operations', () => {
  let p: TestProvider;
  let deps: Deps;
  let offset = 0;
  let n = 0;
  before(async () => {
    p = await startTestProvider();
    // The relying party is the base URL's host: a host name, as passkeys need.
    deps = {
      ...p.deps,
      provider: { ...p.deps.provider, baseUrl: `${ORIGIN}/` },
      clock: () => new Date(Date.now() + offset),
    };
  });
  after(() => p.close());

  async function person(): Promise<string> {
    n += 1;
    const made = await createSubject(deps, { username: `pk-person-${n}`, password: 'a-long-password-1' });
    assert.ok(made.ok);
    return made.value.subject_id;
  }

  async function addPasskey(subjectId: string, binding = 'b1', name = 'Phone') {
    const a = new SoftAuthenticator('localhost', ORIGIN);
    const options = await registrationOptions(deps, { kind: 'account', subjectId }, binding);
    assert.ok(options.ok);
    const done = await verifyRegistration(deps, { response: a.register(options.value), binding, name });
    assert.ok(done.ok, done.ok ? '' : done.error.description);
    return a;
  }

  it('registers a passkey; the same answer a second time is refused (single-use challenge)', async () => {
    const subjectId = await person();
    const a = new SoftAuthenticator('localhost', ORIGIN);
    const options = await registrationOptions(deps, { kind: 'account', subjectId }, 'b1');
    assert.ok(options.ok);
    const answer = a.register(options.value);
    const first = await verifyRegistration(deps, { response: answer, binding: 'b1', name: 'Laptop' });
    assert.ok(first.ok, first.ok ? '' : first.error.description);
    assert.equal(first.value.passkey.name, 'Laptop');
    const again = await verifyRegistration(deps, { response: answer, binding: 'b1' });
    assert.equal(again.ok, false);
    assert.match(again.ok ? '' : again.error.description, /expired or was already used/);
    assert.equal((await signInMethods(deps, subjectId)).passkeys.length, 1);
  });

  it('refuses an answer from another browser (binding) and one after five minutes (expiry)', async () => {
    const subjectId = await person();
    const a = await addPasskey(subjectId);
    const options = await authenticationOptions(deps, 'b1');
    const other = await verifyAuthentication(deps, { response: a.use(options, 1), binding: 'b2' });
    assert.equal(other.ok, false);
    const late = await authenticationOptions(deps, 'b1');
    offset = 5 * 60 * 1000 + 1000;
    try {
      const expired = await verifyAuthentication(deps, { response: a.use(late, 1), binding: 'b1' });
      assert.equal(expired.ok, false);
      assert.match(expired.ok ? '' : expired.error.description, /expired or was already used/);
    } finally {
      offset = 0;
    }
    const inTime = await authenticationOptions(deps, 'b1');
    const used = await verifyAuthentication(deps, { response: a.use(inTime, 1), binding: 'b1' });
    assert.ok(used.ok, used.ok ? '' : used.error.description);
    assert.equal(used.value.subjectId, subjectId);
  });

  it('refuses a use whose counter did not move forward (a copied passkey), and moves nothing', async () => {
    const subjectId = await person();
    const a = await addPasskey(subjectId);
    const o1 = await authenticationOptions(deps, 'b1');
    assert.ok((await verifyAuthentication(deps, { response: a.use(o1, 5), binding: 'b1' })).ok);
    for (const counter of [5, 3]) {
      const o = await authenticationOptions(deps, 'b1');
      const copy = await verifyAuthentication(deps, { response: a.use(o, counter), binding: 'b1' });
      assert.equal(copy.ok, false);
      assert.match(copy.ok ? '' : copy.error.description, /use counter went backwards/);
    }
    assert.equal((await p.store.getPasskey(a.credentialId))?.counter, 5);
  });

  it('turns password sign-in off only with a passkey, and keeps the last way in', async () => {
    const subjectId = await person();
    const off = await setPasswordSignIn(deps, subjectId, false);
    assert.equal(off.ok ? '' : off.error.code, 'conflict');
    const a = await addPasskey(subjectId);
    const nowOff = await setPasswordSignIn(deps, subjectId, false);
    assert.ok(nowOff.ok);
    assert.equal(nowOff.value.password_sign_in, false);
    const last = await removePasskey(deps, subjectId, a.credentialId);
    assert.equal(last.ok ? '' : last.error.code, 'conflict');
    assert.match(last.ok ? '' : last.error.description, /only way to sign in/);
    // A second passkey: the first may go, the second (now the last) may not.
    const b = await addPasskey(subjectId, 'b1', 'Laptop');
    assert.ok((await removePasskey(deps, subjectId, a.credentialId)).ok);
    assert.equal((await removePasskey(deps, subjectId, b.credentialId)).ok, false);
    // Password back on: the last passkey can go.
    assert.ok((await setPasswordSignIn(deps, subjectId, true)).ok);
    assert.ok((await removePasskey(deps, subjectId, b.credentialId)).ok);
    assert.equal((await removePasskey(deps, subjectId, b.credentialId)).ok, false, 'already gone');
  });

  it('an account without a password cannot turn password sign-in on, nor confirm with one', async () => {
    const made = await createPasskeyAccount(deps, { username: 'pk-no-password' });
    assert.ok(made.ok);
    const on = await setPasswordSignIn(deps, made.value.subject_id, true);
    assert.equal(on.ok ? '' : on.error.code, 'conflict');
    const session = { subject_id: made.value.subject_id, session_hash: 'no-password-session' };
    assert.equal((await confirmWithPassword(deps, session, '')).ok, false);
  });

  it('a one-time link registers one passkey, once', async () => {
    const subjectId = await person();
    const token = await createSetupLink(deps, subjectId);
    assert.equal(await setupLinkIsLive(deps, token), true);
    // Two ceremonies started from the link before either finished: only the first may use it.
    const o1 = await registrationOptions(deps, { kind: 'setup_link', token }, 'b1');
    const o2 = await registrationOptions(deps, { kind: 'setup_link', token }, 'b1');
    assert.ok(o1.ok && o2.ok);
    const first = await verifyRegistration(deps, {
      response: new SoftAuthenticator('localhost', ORIGIN).register(o1.value),
      binding: 'b1',
    });
    assert.ok(first.ok, first.ok ? '' : first.error.description);
    assert.equal(first.value.subjectId, subjectId);
    const second = await verifyRegistration(deps, {
      response: new SoftAuthenticator('localhost', ORIGIN).register(o2.value),
      binding: 'b1',
    });
    assert.equal(second.ok, false);
    assert.match(second.ok ? '' : second.error.description, /expired or was already used/);
    assert.equal(await setupLinkIsLive(deps, token), false);
    const again = await registrationOptions(deps, { kind: 'setup_link', token }, 'b1');
    assert.equal(again.ok ? '' : again.error.code, 'access_denied');
    assert.equal((await signInMethods(deps, subjectId)).passkeys.length, 1);
  });

  it('a fresh sign-in lasts five minutes; a password confirms it only without a passkey', async () => {
    const subjectId = await person();
    const session = { subject_id: subjectId, session_hash: `s-${subjectId}` };
    assert.equal(await signedInFreshly(deps, session.session_hash), false);
    const wrong = await confirmWithPassword(deps, session, 'not-the-password');
    assert.equal(wrong.ok, false);
    assert.equal(await signedInFreshly(deps, session.session_hash), false);
    assert.ok((await confirmWithPassword(deps, session, 'a-long-password-1')).ok);
    assert.equal(await signedInFreshly(deps, session.session_hash), true);
    assert.equal(await signedInFreshly(deps, 'another-session'), false);
    offset = 5 * 60 * 1000 + 1000;
    try {
      assert.equal(await signedInFreshly(deps, session.session_hash), false);
    } finally {
      offset = 0;
    }
    await addPasskey(subjectId);
    const withPasskey = await confirmWithPassword(deps, session, 'a-long-password-1');
    assert.match(withPasskey.ok ? '' : withPasskey.error.description, /with your passkey/);
    await noteFreshSignIn(deps, session.session_hash);
    assert.equal(await signedInFreshly(deps, session.session_hash), true);
  });
});

describe('fresh sign-in for sensitive approvals', () => {
  let p: TestProvider;
  before(async () => {
    p = await startTestProvider();
  });
  after(() => p.close());

  const highImpact = (ns: string) =>
    (ns === 'health' ? { namespace: 'health', privacy_guidance: { high_impact: true } } : undefined) as
      | ExtensionDescriptor
      | undefined;

  it('finds high-impact namespaces and the person’s sensitive keys a grant covers', () => {
    const keys = new Set(['novelty_tolerance', 'fragrance.oud']);
    assert.deepEqual(sensitivePartsOf({ allowed_namespaces: ['health', 'travel'] }, keys, highImpact), [
      'health',
    ]);
    assert.deepEqual(sensitivePartsOf({ allowed_namespaces: ['core'] }, keys, highImpact), [
      'novelty_tolerance',
    ]);
    // A grant naming only other keys does not cover the sensitive one.
    assert.deepEqual(
      sensitivePartsOf(
        {
          allowed_namespaces: ['core', 'fragrance'],
          allowed_claim_keys: ['core.risk_tolerance', 'fragrance.oud'],
        },
        keys,
        highImpact,
      ),
      ['fragrance.oud'],
    );
    assert.deepEqual(sensitivePartsOf({ allowed_namespaces: ['travel'] }, keys), []);
  });

  it('refuses such an approval by a session without a fresh sign-in, in words, and allows it after one', async () => {
    const subject = { kind: 'subject' as const, subjectId: p.subjectId };
    const draft = { allowed_namespaces: ['core', 'fragrance'] };
    assert.ok((await freshSignInFor(p.deps, subject, [draft])).ok, 'nothing sensitive: no step');
    assert.ok((await setSensitiveKeys(p.deps, subject, { sensitive_keys: ['novelty_tolerance'] })).ok);
    // A subject token is not a session: the rule is for signed-in pages (docs/passkeys.md).
    assert.ok((await freshSignInFor(p.deps, subject, [draft])).ok, 'a subject token approves as before');
    const stale = await freshSignInFor(p.deps, { ...subject, session: 'sess-1' }, [draft]);
    assert.equal(stale.ok ? '' : stale.error.code, 'access_denied');
    assert.match(
      stale.ok ? '' : stale.error.description,
      /^Confirm it is you: sign in again with your passkey or password/,
    );
    assert.deepEqual(stale.ok ? undefined : stale.error.details, {
      fresh_sign_in: 'required',
      sensitive: ['novelty_tolerance'],
    });
    await noteFreshSignIn(p.deps, 'sess-1');
    assert.ok((await freshSignInFor(p.deps, { ...subject, session: 'sess-1' }, [draft])).ok);
    assert.ok((await freshSignInFor(p.deps, subject, [{ allowed_namespaces: ['travel'] }])).ok);
  });
});
