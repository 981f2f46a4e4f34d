import { closeSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import type { AuditEvent } from '../../model/audit-event.ts';
import { keyListJson } from '../audit-rows.ts';

/**
 * The audit journal's line format (audit-journal.ts): one event's JSON and a newline, its claim-key
 * list last. Written by this process and read back by it (a move, on the event loop or in the
 * mover's thread) or by the next process opened on the file (recovery). And how both threads
 * remove a journal file once its events are in the log.
 */

const KEYS_FIELD = ',"claim_keys":';

/**
 * An event's journal line: its JSON, the claim-key list's taken from keyListJson, which keeps the
 * text of a shared list (every read of one scope names the same one; serializing its keys again
 * for each read was most of the line's cost).
 */
export function lineOf(event: AuditEvent): string {
  const { claim_keys, ...rest } = event;
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${KEYS_FIELD}${keyListJson(claim_keys)}}\n`;
}

/**
 * The events of lines this process wrote (`lineOf`), in order: not validated again, as they were
 * validated before they were written. A line that does not parse (the cut end of a write that
 * failed, whose append failed with it) is skipped. A key list is parsed once per distinct text and
 * frozen, so that the events of one scope share one list (and keyListJson its text) as they did
 * when appended.
 */
export function eventsOfLines(text: string): AuditEvent[] {
  const lists = new Map<string, readonly string[]>();
  const events: AuditEvent[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    // The list is the line's last field: a key holding the same characters would be escaped.
    const at = line.lastIndexOf(KEYS_FIELD);
    if (at === -1) continue;
    try {
      const keysText = line.slice(at + KEYS_FIELD.length, -1);
      let keys = lists.get(keysText);
      if (keys === undefined) {
        keys = Object.freeze(JSON.parse(keysText) as string[]);
        lists.set(keysText, keys);
      }
      const event = JSON.parse(`${line.slice(0, at)}}`) as AuditEvent;
      event.claim_keys = keys as string[];
      events.push(event);
    } catch {
      // As said above.
    }
  }
  return events;
}

/**
 * Removes a journal file whose events are in the log. One that cannot be removed is read again by
 * the next store opened on the database, every event of it skipped as logged: never an error.
 */
export function removeJournalFile(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // As said above.
  }
}

/**
 * The part of a journal file whose events wait to be moved: its bytes from `from` to its end.
 * What comes before `from` is in the log already (audit-journal.ts keeps writing a file after its
 * events were moved, instead of emptying it each time).
 */
export interface JournalPart {
  readonly file: string;
  readonly from: number;
}

/** The text of these parts, in order. Throws when a file cannot be read (the caller tries later). */
export function textOfParts(parts: readonly JournalPart[]): string {
  return parts.map(textOfPart).join('');
}

function textOfPart(part: JournalPart): string {
  const fd = openSync(part.file, 'r');
  try {
    const bytes = Buffer.allocUnsafe(Math.max(0, fstatSync(fd).size - part.from));
    let done = 0;
    while (done < bytes.length) {
      const read = readSync(fd, bytes, done, bytes.length - done, part.from + done);
      if (read === 0) break;
      done += read;
    }
    return bytes.toString('utf8', 0, done);
  } finally {
    closeSync(fd);
  }
}
