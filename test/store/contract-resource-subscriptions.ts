import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ResourceSubscriptionAdded, Store } from '../../src/store/store.ts';
import { at, withStore } from '../support/store-records.ts';

// Store contract for MCP resource subscriptions (docs/store.md, "MCP resource subscriptions"):
// the URIs a grant has subscribed to, in the order first added, at most `cap` of them per grant
// however many adds race, and no change event for any of it.

function grantId(): string {
  return `ppx:grant:${randomUUID()}`;
}

const uri = (n: number | string): string => `ppx://profile/claims/${n}`;

/** How many of each outcome. */
function tally(outcomes: readonly ResourceSubscriptionAdded[]): Record<ResourceSubscriptionAdded, number> {
  const out = { added: 0, present: 0, full: 0 };
  for (const o of outcomes) out[o]++;
  return out;
}

/**
 * `sameDatabase`, when given, returns an opener of one database that every call opens again (see
 * contract-a2a-tasks.ts); without it the tests of several instances are not there.
 */
export function resourceSubscriptionContract(
  open: () => Promise<Store>,
  sameDatabase?: () => () => Promise<Store>,
): void {
  describe('MCP resource subscriptions', () => {
    it(
      'adds, answers present for a URI held and full at the cap, and removes',
      withStore(open, async (store) => {
        const g = grantId();
        assert.deepEqual(await store.listResourceSubscriptions(g), []);
        assert.equal(await store.addResourceSubscription(g, uri('a'), at(1), 2), 'added');
        assert.equal(await store.addResourceSubscription(g, uri('a'), at(2), 2), 'present');
        assert.equal(await store.addResourceSubscription(g, uri('b'), at(3), 2), 'added');
        assert.equal(await store.addResourceSubscription(g, uri('c'), at(4), 2), 'full');
        // A URI held is present even at the cap (and even with a smaller cap given).
        assert.equal(await store.addResourceSubscription(g, uri('b'), at(5), 2), 'present');
        assert.equal(await store.addResourceSubscription(g, uri('a'), at(5), 1), 'present');
        assert.deepEqual(await store.listResourceSubscriptions(g), [uri('a'), uri('b')]);
        assert.equal(await store.removeResourceSubscription(g, uri('a')), true);
        assert.deepEqual(await store.listResourceSubscriptions(g), [uri('b')]);
        // A removed one frees its place.
        assert.equal(await store.addResourceSubscription(g, uri('c'), at(6), 2), 'added');
        assert.deepEqual(await store.listResourceSubscriptions(g), [uri('b'), uri('c')]);
        assert.equal(await store.addResourceSubscription(g, 'x', at(7), 0), 'full');
      }),
    );

    it(
      'lists URIs in the order they were first added, not by name or time; a re-add after a remove goes last',
      withStore(open, async (store) => {
        const g = grantId();
        const uris = [uri('z'), uri('a'), 'urn:x-ppx:é ✓', uri('m'), `${uri('a')}?q=1`];
        for (const [i, u] of uris.entries()) {
          // Times going back: the order is the adds', whatever `at` says.
          assert.equal(await store.addResourceSubscription(g, u, at(100 - i), 10), 'added');
        }
        assert.deepEqual(await store.listResourceSubscriptions(g), uris);
        assert.equal(await store.addResourceSubscription(g, uri('z'), at(200), 10), 'present');
        assert.deepEqual(await store.listResourceSubscriptions(g), uris);
        assert.equal(await store.removeResourceSubscription(g, uri('z')), true);
        assert.equal(await store.addResourceSubscription(g, uri('z'), at(201), 10), 'added');
        assert.deepEqual(await store.listResourceSubscriptions(g), [...uris.slice(1), uri('z')]);
      }),
    );

    it(
      'keeps each grant apart: its own list, its own cap, its own removes',
      withStore(open, async (store) => {
        const [g, h] = [grantId(), grantId()];
        assert.equal(await store.addResourceSubscription(g, uri(1), at(1), 1), 'added');
        assert.equal(await store.addResourceSubscription(h, uri(1), at(1), 1), 'added');
        assert.equal(await store.addResourceSubscription(g, uri(2), at(2), 1), 'full');
        assert.equal(await store.addResourceSubscription(h, uri(2), at(2), 2), 'added');
        assert.deepEqual(await store.listResourceSubscriptions(g), [uri(1)]);
        assert.deepEqual(await store.listResourceSubscriptions(h), [uri(1), uri(2)]);
        assert.equal(await store.removeResourceSubscription(g, uri(2)), false);
        assert.equal(await store.removeResourceSubscription(g, uri(1)), true);
        assert.deepEqual(await store.listResourceSubscriptions(g), []);
        assert.deepEqual(await store.listResourceSubscriptions(h), [uri(1), uri(2)]);
        // A prefix of a grant id is another grant.
        assert.deepEqual(await store.listResourceSubscriptions(h.slice(0, -1)), []);
      }),
    );

    it(
      'a remove of a row not there is false, and changes nothing',
      withStore(open, async (store) => {
        const g = grantId();
        assert.equal(await store.removeResourceSubscription(g, uri(1)), false);
        await store.addResourceSubscription(g, uri(1), at(1), 5);
        assert.equal(await store.removeResourceSubscription(g, uri(2)), false);
        assert.equal(await store.removeResourceSubscription(grantId(), uri(1)), false);
        assert.equal(await store.removeResourceSubscription(g, uri(1)), true);
        assert.equal(await store.removeResourceSubscription(g, uri(1)), false);
        assert.deepEqual(await store.listResourceSubscriptions(g), []);
      }),
    );

    it(
      "clearing a grant's subscriptions removes them all and no other grant's",
      withStore(open, async (store) => {
        const [g, h] = [grantId(), grantId()];
        for (const n of [1, 2, 3]) await store.addResourceSubscription(g, uri(n), at(n), 5);
        await store.addResourceSubscription(h, uri(1), at(1), 5);
        assert.equal(await store.clearResourceSubscriptions(g), 3);
        assert.deepEqual(await store.listResourceSubscriptions(g), []);
        assert.deepEqual(await store.listResourceSubscriptions(h), [uri(1)]);
        assert.equal(await store.clearResourceSubscriptions(g), 0);
      }),
    );

    it(
      'never holds more than the cap when many adds race, and adds one URI raced for once',
      withStore(open, async (store) => {
        const g = grantId();
        const cap = 5;
        const outcomes = await Promise.all(
          Array.from({ length: 24 }, (_, i) => store.addResourceSubscription(g, uri(i), at(1), cap)),
        );
        assert.deepEqual(tally(outcomes), { added: cap, present: 0, full: 24 - cap });
        const held = await store.listResourceSubscriptions(g);
        assert.equal(held.length, cap);
        assert.deepEqual(
          [...held].sort(),
          outcomes.flatMap((o, i) => (o === 'added' ? [uri(i)] : [])).sort(),
        );
        const h = grantId();
        const same = await Promise.all(
          Array.from({ length: 10 }, () => store.addResourceSubscription(h, uri('one'), at(1), cap)),
        );
        assert.deepEqual(tally(same), { added: 1, present: 9, full: 0 });
        assert.deepEqual(await store.listResourceSubscriptions(h), [uri('one')]);
      }),
    );

    it(
      'holds the cap when the adds race in transactions of different scopes',
      withStore(open, async (store) => {
        // The scopes promise less than they should (one grant is one subject's), so a store with
        // several writers runs these at once: the cap must hold all the same.
        const g = grantId();
        const cap = 3;
        const outcomes = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            store.transaction((tx) => tx.addResourceSubscription(g, uri(i), at(1), cap), {
              subject: `subj_race_${i}`,
            }),
          ),
        );
        assert.deepEqual(tally(outcomes), { added: cap, present: 0, full: 12 - cap });
        assert.equal((await store.listResourceSubscriptions(g)).length, cap);
      }),
    );

    it(
      'works inside a transaction, which sees its own adds; a rollback takes them back; no change event',
      withStore(open, async (store) => {
        const g = grantId();
        const seq = await store.latestChangeSeq();
        await store.transaction(async (tx) => {
          assert.equal(await tx.addResourceSubscription(g, uri(1), at(1), 2), 'added');
          assert.equal(await tx.addResourceSubscription(g, uri(2), at(1), 2), 'added');
          assert.equal(await tx.addResourceSubscription(g, uri(3), at(1), 2), 'full');
          assert.deepEqual(await tx.listResourceSubscriptions(g), [uri(1), uri(2)]);
          assert.equal(await tx.removeResourceSubscription(g, uri(1)), true);
        });
        assert.deepEqual(await store.listResourceSubscriptions(g), [uri(2)]);
        await assert.rejects(
          store.transaction(async (tx) => {
            assert.equal(await tx.addResourceSubscription(g, uri(4), at(2), 2), 'added');
            assert.equal(await tx.removeResourceSubscription(g, uri(2)), true);
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.deepEqual(await store.listResourceSubscriptions(g), [uri(2)]);
        assert.equal(await store.latestChangeSeq(), seq);
      }),
    );

    // Only where one database can be opened twice (a file, a server).
    const shared = sameDatabase === undefined ? () => undefined : it;
    shared(
      'shares the subscriptions and the cap between instances on one database, and keeps them',
      async () => {
        const reopen = sameDatabase!();
        const a = await reopen();
        const b = await reopen();
        const g = grantId();
        let held: readonly string[] = [];
        try {
          assert.equal(await a.addResourceSubscription(g, uri(0), at(1), 4), 'added');
          assert.deepEqual(await b.listResourceSubscriptions(g), [uri(0)]);
          assert.equal(await b.addResourceSubscription(g, uri(0), at(2), 4), 'present');
          const outcomes = await Promise.all(
            Array.from({ length: 16 }, (_, i) =>
              (i % 2 === 0 ? a : b).addResourceSubscription(g, uri(i + 1), at(3), 4),
            ),
          );
          assert.deepEqual(tally(outcomes), { added: 3, present: 0, full: 13 });
          assert.equal((await a.listResourceSubscriptions(g)).length, 4);
          assert.deepEqual(await a.listResourceSubscriptions(g), await b.listResourceSubscriptions(g));
          assert.equal(await b.removeResourceSubscription(g, uri(0)), true);
          assert.equal(await a.removeResourceSubscription(g, uri(0)), false);
          held = await a.listResourceSubscriptions(g);
          assert.equal(held.length, 3);
        } finally {
          await a.close();
          await b.close();
        }
        // Kept when the store is closed and opened again.
        const c = await reopen();
        try {
          assert.deepEqual(await c.listResourceSubscriptions(g), held);
        } finally {
          await c.close();
        }
      },
    );
  });
}
