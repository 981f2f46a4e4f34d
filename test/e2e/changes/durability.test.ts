import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import type { ChangeEvent } from '../../../src/model/change-event.ts';
import { DEMO_SUBJECT } from '../../../src/operations/seed/demo-profile.ts';
import { issueSubjectToken } from '../../../src/operations/tokens/issue-tokens.ts';
import { openProvider } from '../../../src/provider.ts';
import { api, freePort } from '../../support/provider.ts';
import { killHard, serveProcess } from '../../support/serve-process.ts';
import { testDatabase } from '../../support/test-database.ts';
import { proposed } from '../../support/writeback.ts';

// The outbox row is written in the write's own transaction, so a write the server acknowledged
// has its change event in the database even if the process dies right after answering: kill
// `ppx serve` with SIGKILL and every acknowledged write's event is in the database (the SQLite
// file, or the PostgreSQL schema with PPX_TEST_STORE=postgres), read back through a store.

describe('no acknowledged change event is lost when the server is killed', () => {
  const database = testDatabase();
  after(() => database.drop());

  it('after SIGKILL the outbox holds a row for every acknowledged write', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = await serveProcess(database.cliArgs, port, base);
    let killed = false;
    try {
      const config = loadConfig({ ...database.config, baseUrl: base }, {});
      assert.ok(config.ok);
      const cli = await openProvider(config.value);
      const owner = (await issueSubjectToken(cli, DEMO_SUBJECT)).access_token;
      await cli.store.close();

      // A burst of claim writes, answered concurrently.
      const writes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api(base, '/v1/profile/propose-updates', {
            token: owner,
            body: { claims: [proposed('core', 'risk_tolerance', i / 20)] },
          }),
        ),
      );
      for (const w of writes) assert.equal(w.status, 200, w.text);
      const verifier = randomBytes(32).toString('base64url');
      const requested = await api(base, '/v1/consent/request', {
        body: {
          client_id: 'fragrance-demo',
          subject_id: DEMO_SUBJECT,
          purposes: ['recommendation'],
          allowed_domains: ['fragrance'],
          allowed_namespaces: ['core', 'fragrance'],
          allowed_operations: ['read'],
          redirect_uri: 'http://localhost:5173/callback',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
        },
      });
      assert.equal(requested.status, 201, requested.text);
      const requestId = requested.json.grant_request_id as string;
      const approved = await api(base, '/v1/consent/approve', {
        token: owner,
        body: { grant_request_id: requestId },
      });
      assert.equal(approved.status, 200, approved.text);
      const grantId = approved.json.grant_id as string;
      const revoked = await api(base, '/v1/consent/revoke', { token: owner, body: { grant_id: grantId } });
      assert.equal(revoked.status, 200, revoked.text);
      const keys = await api(base, '/v1/profile/sensitive-keys', {
        token: owner,
        body: { sensitive_keys: ['budget_sensitivity'] },
      });
      assert.equal(keys.status, 200, keys.text);
      const deleted = await api(base, '/v1/profile/claims/ppx:claim:demo-core-budget', {
        method: 'DELETE',
        token: owner,
      });
      assert.equal(deleted.status, 200, deleted.text);

      // The last answer is in; the process dies before it could do anything else.
      await killHard(server);
      killed = true;

      const store = await database.open();
      let rows: ChangeEvent[];
      try {
        rows = await store.listChanges({ after: 0, subjectId: DEMO_SUBJECT, limit: 1000 });
      } finally {
        await store.close();
      }
      const has = (kind: string, test: (e: ChangeEvent) => boolean) =>
        assert.ok(
          rows.some((e) => e.kind === kind && test(e)),
          `${kind} is in the outbox: ${JSON.stringify(rows.map((e) => e.kind))}`,
        );
      for (const w of writes) {
        const claimId = w.json.claims[0].claim_id as string;
        has('claims_written', (e) => e.ids.claim_ids?.includes(claimId) === true);
      }
      has('consent_requested', (e) => e.ids.grant_request_ids?.includes(requestId) === true);
      has('grant_created', (e) => e.grants.includes(grantId));
      has('consent_decided', (e) => e.ids.grant_request_ids?.includes(requestId) === true);
      has('grant_revoked', (e) => e.grants.includes(grantId));
      has('sensitive_keys_changed', () => true);
      has('claims_deleted', (e) => e.ids.claim_ids?.includes('ppx:claim:demo-core-budget') === true);
      const seqs = rows.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
      );
    } finally {
      if (!killed) await killHard(server);
    }
  });
});
