import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Deps } from '../../../../src/operations/deps.ts';
import { checkProof } from '../../../../src/operations/tokens/dpop-proof.ts';
import type { ProofLedger } from '../../../../src/store/proof-ledger.ts';
import { dpopKey, proof } from '../../../support/dpop.ts';

// A proof for a bound token, made with another key, is refused before the replay ledger records
// it: a token's holder without its key cannot fill the ledger (RFC 9449 §4.3 step 12, §11.1).

const BASE = 'https://ppx.example';

it('a proof by another key than the bound one is refused and not recorded; the bound key is', async () => {
  const taken: string[] = [];
  const ledger: ProofLedger = {
    take: async (key) => {
      taken.push(key);
      return true;
    },
  };
  const deps = { clock: () => new Date(), provider: { baseUrl: BASE }, dpop: { ledger } } as unknown as Deps;
  const [bound, other] = [await dpopKey(), await dpopKey()];
  const request = { method: 'POST', path: '/v1/profile/effective', accessToken: 'token', boundTo: bound.jkt };
  const parts = { htm: 'POST', htu: `${BASE}/v1/profile/effective`, accessToken: 'token' };

  const wrong = await checkProof(deps, await proof(other, parts), request);
  assert.equal(wrong.ok, false);
  assert.equal(!wrong.ok && wrong.error.code, 'invalid_dpop_proof');
  assert.deepEqual(taken, [], 'nothing recorded for a proof by another key');

  const right = await checkProof(deps, await proof(bound, parts), request);
  assert.equal(right.ok, true);
  assert.equal(taken.length, 1);
});
