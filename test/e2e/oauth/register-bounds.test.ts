import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pruneConsentData } from '../../../src/operations/consent/retention.ts';
import {
  CLIENT_NAME_MAX,
  MAX_CONTACTS,
  MAX_REDIRECT_URIS,
  REDIRECT_URI_MAX,
  REGISTRATION_BODY_LIMIT,
  UNUSED_CLIENT_HOURS,
} from '../../../src/operations/oauth/register.ts';
import { testClock } from '../../support/clock.ts';
import { codeFlow, REDIRECT, register, signedInCookie } from '../../support/oauth-flow.ts';
import { startTestProvider, type TestProvider } from '../../support/provider.ts';

// Issue 22 item 12: open registration (RFC 7591) must not grow without end. A registration is
// small (its body at most REGISTRATION_BODY_LIMIT bytes, each field bounded, refused with
// RFC 7591 §3.2.2 codes and words past a bound), and a self-registered client that got no grant
// within UNUSED_CLIENT_HOURS is removed. Bounded test: the bytes 1,000 of the largest
// registrations still accepted leave in the store.

const HOUR = 3_600_000;

/** Per stored registration, in bytes: the bound docs/oauth.md states. */
const STORED_BYTES_PER_CLIENT = 5_000;

/** The largest registration an attacker could send before the bounds (about 230 KB). */
function bloated(i: number): Record<string, unknown> {
  return {
    redirect_uris: Array.from({ length: 10 }, (_, k) => `https://app.example/${i}/${k}/${'a'.repeat(1970)}`),
    token_endpoint_auth_method: 'none',
    client_name: 'n'.repeat(1000),
    client_uri: `https://app.example/${'u'.repeat(980)}`,
    logo_uri: `https://app.example/${'l'.repeat(980)}`,
    tos_uri: `https://app.example/${'t'.repeat(980)}`,
    policy_uri: `https://app.example/${'p'.repeat(980)}`,
    scope: 's'.repeat(1000),
    software_id: 'i'.repeat(1000),
    software_version: 'v'.repeat(1000),
    contacts: Array.from({ length: 10 }, () => 'c'.repeat(20_000)),
  };
}

/** The largest registration the bounds accept: every field near its bound, the body at the limit. */
function largest(i: number): Record<string, unknown> {
  const uri = (k: number, len: number) => {
    const head = `https://app.example/${i}/${k}/`;
    return head + 'a'.repeat(len - head.length);
  };
  const body: Record<string, unknown> = {
    redirect_uris: [uri(0, 200), uri(1, 200)],
    token_endpoint_auth_method: 'none',
    client_name: 'n'.repeat(CLIENT_NAME_MAX),
    client_uri: uri(9, 300),
    contacts: ['ops@app.example'],
    software_id: 'i'.repeat(100),
  };
  // Fill what is left of the body with one more redirect URI.
  const left = REGISTRATION_BODY_LIMIT - Buffer.byteLength(JSON.stringify(body)) - 4;
  (body['redirect_uris'] as string[]).push(uri(2, Math.min(REDIRECT_URI_MAX, left)));
  return body;
}

describe('open registration is bounded and pruned (issue 22 item 12)', () => {
  let p: TestProvider;
  const clock = testClock();
  before(async () => {
    p = await startTestProvider({ clock: clock.clock });
  });
  after(() => p.close());

  /**
   * What the clients table holds, in characters of its rows' text: a measure of the rows as
   * stored, which no store method gives (the same query on either store).
   */
  async function storedBytes(): Promise<number> {
    const [row] = await p.database.rows(
      'SELECT coalesce(sum(length(client_id) + length(created_at) + length(body)), 0) AS n FROM clients',
    );
    return Number(row?.['n']);
  }

  const refusals: [string, Record<string, unknown>, string, RegExp][] = [
    [
      `more than ${MAX_REDIRECT_URIS} redirect URIs`,
      { redirect_uris: Array.from({ length: MAX_REDIRECT_URIS + 1 }, (_, k) => `https://app.example/${k}`) },
      'invalid_redirect_uri',
      /at most 10 redirect_uris/,
    ],
    [
      `a redirect URI longer than ${REDIRECT_URI_MAX} characters`,
      { redirect_uris: [`https://app.example/${'a'.repeat(REDIRECT_URI_MAX)}`] },
      'invalid_redirect_uri',
      /longer than 512 characters/,
    ],
    [
      `a client_name longer than ${CLIENT_NAME_MAX} characters`,
      { redirect_uris: [REDIRECT], client_name: 'n'.repeat(CLIENT_NAME_MAX + 1) },
      'invalid_client_metadata',
      /client_name must be a string of at most 200 characters/,
    ],
    [
      'a client_uri longer than 512 characters',
      { redirect_uris: [REDIRECT], client_uri: `https://app.example/${'u'.repeat(600)}` },
      'invalid_client_metadata',
      /client_uri must be a string of at most 512 characters/,
    ],
    [
      `more than ${MAX_CONTACTS} contacts`,
      { redirect_uris: [REDIRECT], contacts: Array.from({ length: MAX_CONTACTS + 1 }, () => 'a@b.example') },
      'invalid_client_metadata',
      /contacts must list at most 5/,
    ],
    [
      'a contact longer than 320 characters',
      { redirect_uris: [REDIRECT], contacts: ['c'.repeat(321)] },
      'invalid_client_metadata',
      /contacts must list at most 5/,
    ],
  ];
  for (const [what, body, code, words] of refusals) {
    it(`refuses ${what}: 400 ${code}, in words`, async () => {
      const before = await storedBytes();
      const r = await register(p, body);
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.equal(r.json.error, code);
      assert.match(r.json.error_description, words);
      assert.equal(await storedBytes(), before, 'nothing stored');
    });
  }

  it(`refuses a body over ${REGISTRATION_BODY_LIMIT} bytes: 413, in words`, async () => {
    const r = await register(p, {
      redirect_uris: [REDIRECT],
      software_version: 'v'.repeat(REGISTRATION_BODY_LIMIT),
    });
    assert.equal(r.status, 413);
    assert.equal(r.json.error, 'payload_too_large');
    assert.match(r.json.error_description, /larger than the limit of 4096 bytes/);
  });

  // A thousand registrations, each its own transaction: ~40 s on SQLite, ~100 s on PostgreSQL here.
  it(`1,000 of the largest registrations: the oversized refused, the rest within ${STORED_BYTES_PER_CLIENT} bytes each; unused ones pruned after ${UNUSED_CLIENT_HOURS} h`, {
    timeout: 300_000,
  }, async () => {
    const before = await storedBytes();
    const ROUNDS = 1000;
    for (let i = 1; i <= ROUNDS; i++) {
      const refused = await register(p, bloated(i));
      assert.ok(
        refused.status === 400 || refused.status === 413,
        `the bloated one is refused (${refused.status})`,
      );
      const r = await register(p, largest(i));
      assert.equal(r.status, 201, JSON.stringify(r.json));
      if (i === 1 || i % 100 === 0) {
        const grown = (await storedBytes()) - before;
        assert.ok(grown <= i * STORED_BYTES_PER_CLIENT, `${i} registrations hold ${grown} bytes`);
      }
    }
    const grown = (await storedBytes()) - before;
    console.log(`# 1,000 largest registrations hold ${grown} bytes in the store`);
    assert.ok(grown <= ROUNDS * STORED_BYTES_PER_CLIENT);

    // One self-registered client is used: it got a grant. One registers just before the pruning.
    const cookie = await signedInCookie(p);
    const used = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const flow = await codeFlow(p, cookie, used.json.client_id);
    assert.equal(flow.tokens.status, 200);
    clock.advance(UNUSED_CLIENT_HOURS * HOUR - 60_000);
    const recent = await register(p, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    // Not yet: nothing is older than the horizon.
    assert.equal((await pruneConsentData(p.deps)).clients, 0);
    clock.advance(2 * 60_000);
    const pruned = await pruneConsentData(p.deps);
    assert.equal(pruned.clients, ROUNDS, 'every unused registration went');
    assert.ok(await p.deps.store.getClient(used.json.client_id), 'the used one stays');
    assert.ok(await p.deps.store.getClient(recent.json.client_id), 'the recent one stays');
    assert.ok(await p.deps.store.getClient('fragrance-demo'), 'operator clients are never pruned');
    assert.ok((await storedBytes()) - before <= 2 * STORED_BYTES_PER_CLIENT);
  });
});
