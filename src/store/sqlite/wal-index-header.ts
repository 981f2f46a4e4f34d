import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';

/** The header of SQLite's WAL index (`WalIndexHdr` in wal.c): 48 bytes, kept twice at the `-shm` file's start. */
const HEADER_BYTES = 48;
/** `isInit`: the header's byte that is 1 once the index is built. */
const IS_INIT_OFFSET = 12;

/**
 * The WAL index header of a database in WAL mode, read from its `-shm` file: every commit to the
 * file, by any connection of any process, rewrites it (`iChange` counts the commits; `mxFrame`, the
 * salts and the checksum move with them), and nothing else does but a rewind of the WAL. So while
 * it holds the same bytes, nothing was committed. `PRAGMA data_version` answers the same question
 * with a read transaction of its own (two `fcntl` locks and the index), which a lone client's read
 * paid ~20 µs for; one `pread` of these bytes costs about half the PRAGMA in a loop (2.9 against
 * 5.2 µs) and no lock (docs/benchmarks.md, "The lone client, sixth pass").
 *
 * SQLite maps the `-shm` file shared, so a `pread` sees what the writers wrote. A writer writes the
 * second copy, then the first; the first copy is read first, so a header caught half-written has
 * copies that differ, as SQLite's own readers find it (walIndexTryHdr). Such a read, a file that is
 * missing or short, or an index not built yet gives `undefined`: the caller asks SQLite.
 *
 * SQLite locks the `-shm` file with POSIX record locks, and closing any descriptor of a file drops
 * every such lock the process holds on it, SQLite's included. So the descriptor is one per file
 * per process, shared by every header on it (two stores on one file, as tests open them), and
 * closed with the last of them, which the store does after its connections are closed
 * (connections.ts#close), as SQLite closes its own only when its last connection goes.
 */
export class WalIndexHeader {
  readonly #shm: SharedShm;
  readonly #both = Buffer.alloc(2 * HEADER_BYTES);
  #closed = false;

  constructor(databasePath: string) {
    this.#shm = SharedShm.of(`${resolve(databasePath)}-shm`);
  }

  /** The header's bytes now (valid until the next call), or undefined when they cannot be trusted. */
  read(): Buffer | undefined {
    const fd = this.#closed ? null : this.#shm.fd();
    if (fd === null) return undefined;
    let n: number;
    try {
      n = readSync(fd, this.#both, 0, this.#both.length, 0);
    } catch {
      return undefined;
    }
    const both = this.#both;
    if (n < both.length || both[IS_INIT_OFFSET] !== 1) return undefined;
    if (both.compare(both, HEADER_BYTES, 2 * HEADER_BYTES, 0, HEADER_BYTES) !== 0) return undefined;
    return both.subarray(0, HEADER_BYTES);
  }

  /** Lets go of the shared descriptor: call it only after this store's connections are closed. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#shm.release();
  }
}

/** The one descriptor of a `-shm` file in this process, and how many headers use it. */
class SharedShm {
  static readonly #open = new Map<string, SharedShm>();

  static of(path: string): SharedShm {
    let shm = SharedShm.#open.get(path);
    if (shm === undefined) {
      shm = new SharedShm(path);
      SharedShm.#open.set(path, shm);
    }
    shm.#users += 1;
    return shm;
  }

  readonly #path: string;
  #users = 0;
  /** Undefined until the first read; null when the file could not be opened (SQLite is asked). */
  #fd: number | null | undefined;

  private constructor(path: string) {
    this.#path = path;
  }

  fd(): number | null {
    if (this.#fd === undefined) this.#fd = tryOpen(this.#path);
    return this.#fd;
  }

  release(): void {
    this.#users -= 1;
    if (this.#users > 0) return;
    SharedShm.#open.delete(this.#path);
    if (typeof this.#fd === 'number') closeSync(this.#fd);
    this.#fd = null;
  }
}

/**
 * Whether nothing was committed since the last look, one per cache: `unchanged()` is true only
 * when the header reads as it did at the previous call. The caller checks with SQLite whenever it
 * is false, after this read, so a commit between the two is seen at the next call.
 */
export class CommitMark {
  readonly #header: WalIndexHeader;
  readonly #seen = Buffer.alloc(HEADER_BYTES);
  #known = false;

  constructor(header: WalIndexHeader) {
    this.#header = header;
  }

  unchanged(): boolean {
    const now = this.#header.read();
    if (now === undefined) {
      this.#known = false;
      return false;
    }
    if (this.#known && now.equals(this.#seen)) return true;
    now.copy(this.#seen);
    this.#known = true;
    return false;
  }
}

function tryOpen(path: string): number | null {
  try {
    return openSync(path, 'r');
  } catch {
    return null;
  }
}
