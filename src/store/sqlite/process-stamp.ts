import { existsSync, readFileSync } from 'node:fs';

const HAS_PROC = existsSync('/proc/self/stat');

/**
 * A name for this process that another process can check is still running: its pid and, on
 * Linux, its start time in clock ticks since boot (/proc/PID/stat, field 22), so that a pid used
 * again by a later process is not taken for the one that wrote a file. Used by the audit journal
 * (audit-journal.ts) to tell a live process's journal from one left by a process that is gone.
 */
export function processStamp(): string {
  return `${process.pid}-${OWN_TICKS}`;
}

/** Whether the process that named a file `${processStamp()}-…` runs still (and is not this one's own store). */
export function isOtherProcessAlive(fileName: string): boolean {
  const match = /^(\d+)-(\d+)-/.exec(fileName);
  if (match === null) return false;
  const pid = Number(match[1]);
  const ticks = Number(match[2]);
  // This process: a journal of another store open on the same file here, or of one not closed.
  if (pid === process.pid && ticks === OWN_TICKS) return true;
  if (HAS_PROC) {
    const now = startTicks(pid);
    return now !== undefined && (ticks === 0 || now === ticks);
  }
  try {
    // No /proc (not Linux): signal 0 only asks whether the process exists.
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Start time of `pid` in clock ticks since boot; undefined when there is no such process or no /proc. */
function startTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

const OWN_TICKS = startTicks(process.pid) ?? 0;
