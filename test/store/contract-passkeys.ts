import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { PasskeyRecord, PasskeyTicket } from '../../src/model/passkey.ts';
import { IdConflictError, type Store } from '../../src/store/store.ts';
import { at, withStore } from '../support/store-records.ts';

// Store contract for passkeys (docs/passkeys.md): credentials by subject, the counter moved only by
// compare-and-set, removal by owner only, and tickets taken at most once and never once expired.

function passkey(subjectId: string, n: number, extra: Partial<PasskeyRecord> = {}): PasskeyRecord {
  return {
    credential_id: `cred-${randomUUID()}`,
    subject_id: subjectId,
    public_key: 'pQECAyYgASFYIA',
    counter: 0,
    transports: ['internal', 'hybrid'],
    name: `Key ${n}`,
    created_at: at(n),
    ...extra,
  };
}

function ticket(extra: Partial<PasskeyTicket> = {}): PasskeyTicket {
  return {
    ticket_hash: `hash-${randomUUID()}`,
    kind: 'authentication',
    body: '{"challenge":"abc"}',
    expires_at: at(10),
    ...extra,
  };
}

export function passkeyContract(open: () => Promise<Store>): void {
  describe('passkeys', () => {
    it(
      'lists a subject’s passkeys oldest first, finds one by id and refuses a taken id',
      withStore(open, async (store) => {
        const s = `ppx:subject:${randomUUID()}`;
        const second = passkey(s, 2);
        const first = passkey(s, 1, { last_used_at: at(3), counter: 7 });
        await store.insertPasskey(second);
        await store.insertPasskey(first);
        await store.insertPasskey(passkey('ppx:subject:other', 0));
        assert.deepEqual(await store.listPasskeys(s), [first, second]);
        assert.deepEqual(await store.getPasskey(second.credential_id), second);
        assert.equal(await store.getPasskey('nope'), undefined);
        await assert.rejects(store.insertPasskey({ ...first, subject_id: 'x' }), IdConflictError);
        assert.deepEqual(await store.getPasskey(first.credential_id), first);
      }),
    );

    it(
      'moves the counter only from the value expected, and removes only the owner’s passkey',
      withStore(open, async (store) => {
        const s = `ppx:subject:${randomUUID()}`;
        const p = passkey(s, 1, { counter: 5 });
        await store.insertPasskey(p);
        assert.equal(await store.usePasskey(p.credential_id, 4, 9, at(2)), false);
        assert.equal((await store.getPasskey(p.credential_id))?.counter, 5);
        assert.equal(await store.usePasskey(p.credential_id, 5, 6, at(2)), true);
        assert.equal(await store.usePasskey(p.credential_id, 5, 7, at(3)), false);
        assert.deepEqual(await store.getPasskey(p.credential_id), { ...p, counter: 6, last_used_at: at(2) });
        assert.equal(await store.usePasskey('missing', 0, 1, at(2)), false);
        assert.equal(await store.deletePasskey('ppx:subject:other', p.credential_id), false);
        assert.equal(await store.deletePasskey(s, p.credential_id), true);
        assert.equal(await store.deletePasskey(s, p.credential_id), false);
        assert.deepEqual(await store.listPasskeys(s), []);
      }),
    );

    it(
      'gives a ticket while live and of its kind, takes it once, and prunes the expired',
      withStore(open, async (store) => {
        const t = ticket({ subject_id: 'ppx:subject:a', kind: 'setup_link' });
        const bare = ticket();
        await store.putPasskeyTicket(t);
        await store.putPasskeyTicket(bare);
        await assert.rejects(store.putPasskeyTicket(t), IdConflictError);
        assert.deepEqual(await store.getPasskeyTicket(t.ticket_hash, 'setup_link', at(1)), t);
        assert.equal(await store.getPasskeyTicket(t.ticket_hash, 'registration', at(1)), undefined);
        assert.equal(await store.getPasskeyTicket(t.ticket_hash, 'setup_link', at(10)), undefined);
        assert.equal(await store.takePasskeyTicket(t.ticket_hash, 'setup_link', at(10)), undefined);
        assert.equal(await store.takePasskeyTicket(t.ticket_hash, 'authentication', at(1)), undefined);
        const takes = await Promise.all([
          store.takePasskeyTicket(t.ticket_hash, 'setup_link', at(1)),
          store.takePasskeyTicket(t.ticket_hash, 'setup_link', at(1)),
        ]);
        assert.deepEqual(
          takes.filter((x) => x !== undefined),
          [t],
        );
        assert.deepEqual(await store.getPasskeyTicket(bare.ticket_hash, 'authentication', at(1)), bare);
        await store.putPasskeyTicket(ticket({ expires_at: at(1) }));
        assert.equal(await store.prunePasskeyTickets(at(5), 10), 1);
        assert.equal(await store.prunePasskeyTickets(at(20), 10), 1);
        assert.equal(await store.getPasskeyTicket(bare.ticket_hash, 'authentication', at(1)), undefined);
      }),
    );
  });
}
