import { createHash } from 'node:crypto';
import pg from 'pg';

// Notices across instances (issue 14, item 2; issue 23, item 3; docs/store.md, "PostgreSQL"). The
// outbox is in the database, and a commit that appended change events also NOTIFYs the schema's
// channel with its last seq; migration 0007's triggers NOTIFY the same channel with each cached row
// that changed (a grant, a client, a setting, the signing keys, a profile). PostgreSQL delivers a
// notification only when its transaction commits, in commit order, to every listener. Every
// instance LISTENs on one connection of its own: a seq goes to its change feed, which reads what it
// has not published yet from the outbox; a row notice goes to its record cache. While the
// connection is down a notice can be missed: the caller keeps nothing cached then (`down`), and
// after every (re)connection (`up`) drops what it kept and catches up from the outbox, so an event
// can be late but never skipped, and a cached row never outlives a change.

/** The channel of a schema, as migration 0007's trigger names it: 'ppx_' and the md5 of the name. */
export function changeChannel(schema: string): string {
  return `ppx_${createHash('md5').update(schema, 'utf8').digest('hex')}`;
}

export interface NoticeHandlers {
  /** A commit's last change seq. */
  seq(seq: number): void;
  /** A cached row changed (record-cache.ts#drop). */
  row(notice: string): void;
  /** Listening (again): whatever was missed meanwhile must be caught up. */
  up(): void;
  /** The connection dropped: notices may be missed until `up`. */
  down(): void;
}

export interface ChangeListener {
  /** The backend pid of the listening connection (tests end it to check what a drop does). */
  pid(): number | undefined;
  /**
   * One round trip on the listening connection: when it resolves, every notification committed
   * before it began has been handed to the handlers. Rejects when the connection is down.
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** LISTENs on `channel` with a connection of its own, reconnecting a second after it drops. */
export async function listenForChanges(
  config: pg.ClientConfig,
  channel: string,
  on: NoticeHandlers,
): Promise<ChangeListener> {
  let client: (pg.Client & { processID?: number }) | undefined;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client(config);
    c.on('notification', (n) => {
      if (n.channel !== channel || n.payload === undefined) return;
      const seq = Number(n.payload);
      if (Number.isSafeInteger(seq)) on.seq(seq);
      else on.row(n.payload);
    });
    // A dropped connection: keep nothing from now on, listen again in a second, then catch up.
    const dropped = (): void => {
      if (client === c) on.down();
      schedule();
    };
    c.on('error', dropped);
    c.on('end', dropped);
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    client = c;
    on.up();
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
    pid: () => client?.processID,
    async sync() {
      if (client === undefined) throw new Error('not listening');
      await client.query('SELECT 1');
    },
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
