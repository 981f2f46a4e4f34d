/** Whether a store is still open: every call but `close()` refuses a closed store. */
export class OpenState {
  #closed = false;

  /** Throws "store is closed" once the store was closed. */
  assertOpen(): void {
    if (this.#closed) throw new Error('store is closed');
  }

  readonly isClosed = (): boolean => this.#closed;

  /** Marks the store closed; false when it already was (a second close does nothing). */
  markClosed(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }
}
