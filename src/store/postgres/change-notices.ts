import pg from 'pg';

// Change events across instances (issue 14, item 2; docs/store.md, "PostgreSQL"): the outbox is in
// the database, and a commit that appended events also NOTIFYs the schema's channel with its last
// seq (inside the transaction: PostgreSQL delivers a notification only when its transaction
// commits, in commit order). Every instance LISTENs on one connection of its own and hands each
// seq to its feed, which reads what it has not published yet from the outbox. A notification lost
// (the listening connection dropped) is made good when it is listening again: it reads from the
// last seq it published, so nothing is skipped, only late.

/** The channel of a schema: identifiers are at most 63 bytes, so the schema is hashed. */
export function changeChannel(schema: string): string {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(schema, 'utf8')) h = Math.imul(h ^ ch, 0x01000193) >>> 0;
  return `ppx_changes_${h.toString(16)}`;
}

export interface ChangeListener {
  close(): Promise<void>;
}

/**
 * LISTENs on `channel` with a connection of its own, calling `onSeq` with each announced seq, and
 * `onSeq(undefined)` after every (re)connection so the caller catches up from the outbox.
 */
export async function listenForChanges(
  config: pg.ClientConfig,
  channel: string,
  onSeq: (seq: number | undefined) => void,
): Promise<ChangeListener> {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client(config);
    c.on('notification', (n) => {
      const seq = Number(n.payload);
      if (n.channel === channel && Number.isSafeInteger(seq)) onSeq(seq);
    });
    // A dropped connection: listen again in a second, then catch up.
    c.on('error', () => schedule());
    c.on('end', () => schedule());
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    client = c;
    onSeq(undefined);
  };
  const schedule = (): void => {
    if (closed || retry !== undefined) return;
    client = undefined;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => schedule());
    }, 1000);
    retry.unref();
  };
  await connect();
  return {
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
