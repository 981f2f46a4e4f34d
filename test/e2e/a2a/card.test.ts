import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { type CryptoKey, flattenedVerify, importJWK } from 'jose';
import { canonicalJson } from '../../../src/surfaces/a2a/legacy-card.ts';
import { api, startTestProvider, type TestProvider } from '../../support/provider.ts';

// Issue 22 item 5: the agent card's signature covers what each client reads. A 0.3 client reads
// the top-level `url` (where it sends the grant's token); a card whose `url` can be changed and
// still verify with @a2a-js/sdk's own verifier would send that token anywhere.

function keyFrom(jwks: { keys: { kid: string }[] }) {
  return async (kid: string) => (await importJWK(jwks.keys.find((k) => k.kid === kid)!)) as CryptoKey;
}

describe('A2A preference agent: each version’s card is signed over what its clients read', () => {
  let p: TestProvider;
  let jwks: { keys: { kid: string }[] };
  before(async () => {
    p = await startTestProvider();
    jwks = (await api(p.url, '/.well-known/jwks.json')).json;
  });
  after(async () => p.close());

  const card = async (headers: Record<string, string>) => {
    const r = await fetch(`${p.url}/.well-known/agent-card.json`, { headers });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('vary') ?? '', /A2A-Version/i);
    return (await r.json()) as Record<string, unknown>;
  };

  it('the 1.0 card holds nothing outside its signature', async () => {
    const raw = await card({ 'A2A-Version': '1.0' });
    assert.equal('url' in raw, false, 'no top-level url beside the signed 1.0 card');
    // Everything served is what the SDK's verifier canonicalizes: nothing is left outside it.
    assert.deepEqual(AgentCard.toJSON(AgentCard.fromJSON(raw)), raw);
    const parsed = AgentCard.fromJSON(raw);
    await verifyAgentCardSignature(keyFrom(jwks))(parsed);
    const moved = structuredClone(parsed);
    moved.supportedInterfaces[0]!.url = 'https://attacker.example/a2a';
    await assert.rejects(verifyAgentCardSignature(keyFrom(jwks))(moved));
  });

  it('the 0.3 card (no A2A-Version): the SDK’s verifier accepts it, and refuses it once its url is changed', async () => {
    const raw = await card({});
    assert.equal(raw['url'], `${p.url}/a2a`);
    assert.equal(raw['protocolVersion'], '0.3');
    assert.ok(isLegacyAgentCard(raw), 'read as a 0.3 card by the SDK');
    await verifyAgentCardSignature(keyFrom(jwks))(parseLegacyAgentCard(raw));
    const tampered = { ...raw, url: 'https://attacker.example/a2a' };
    await assert.rejects(verifyAgentCardSignature(keyFrom(jwks))(parseLegacyAgentCard(tampered)));
    assert.deepEqual(await card({ 'A2A-Version': '0.3' }), raw);
  });

  it('the 0.3 card also carries a signature over its own RFC 8785 form, which a changed url breaks', async () => {
    const raw = await card({});
    const { signatures, ...unsigned } = raw as { signatures: { protected: string; signature: string }[] };
    const verifies = async (body: Record<string, unknown>) => {
      const payload = Buffer.from(canonicalJson(body)).toString('base64url');
      for (const s of signatures) {
        try {
          const kid = JSON.parse(Buffer.from(s.protected, 'base64url').toString()).kid;
          await flattenedVerify({ payload, ...s }, await keyFrom(jwks)(kid));
          return true;
        } catch {}
      }
      return false;
    };
    assert.equal(await verifies(unsigned), true);
    assert.equal(await verifies({ ...unsigned, url: 'https://attacker.example/a2a' }), false);
  });
});
