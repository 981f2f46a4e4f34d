// The MCP resource-subscription side of the store contract (MCP 2025-11-25 `resources/subscribe`
// and `resources/unsubscribe`; SQLite migration 0016, PostgreSQL 0011). A client subscribes in a
// stateless POST and listens later on a GET stream, perhaps served by another instance on the same
// database, so which URIs a consent grant has subscribed to lives here. A subscription belongs to
// the grant (its id), not to a session. StoreReader and StoreWriter in store.ts extend these
// interfaces; the conventions stated there hold here too.
//
// These rows are transient protocol state: they are not part of export, import or `ppx migrate`
// (transfer/tables.ts), and no write here appends a change event (docs/store.md, "MCP resource
// subscriptions"). No foreign key to grants: a grant's rows are whatever the protocol left, and
// the reader names the grant.

/** What `addResourceSubscription` did. */
export type ResourceSubscriptionAdded = 'added' | 'present' | 'full';

export interface ResourceSubscriptionReader {
  /** The URIs `grantId` has subscribed to, in the order they were first added; empty for none. */
  listResourceSubscriptions(grantId: string): Promise<readonly string[]>;
}

export interface ResourceSubscriptionWriter {
  /**
   * Subscribes `grantId` to `uri` (at `at`, RFC 3339), within `cap` subscriptions per grant:
   * 'present' when that (grant, uri) is stored already (nothing changes, its first time stays),
   * 'full' when the grant already has `cap` others (nothing written), else 'added'. Decided
   * atomically: concurrent adds, from any instance, never leave a grant with more than `cap`.
   */
  addResourceSubscription(
    grantId: string,
    uri: string,
    at: string,
    cap: number,
  ): Promise<ResourceSubscriptionAdded>;
  /** Unsubscribes `grantId` from `uri`; false when it was not subscribed. */
  removeResourceSubscription(grantId: string, uri: string): Promise<boolean>;
  /** Every subscription of `grantId` (its grant ended); how many there were. */
  clearResourceSubscriptions(grantId: string): Promise<number>;
}
