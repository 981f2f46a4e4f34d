import type { PasskeyRecord, PasskeyTicket, PasskeyTicketKind } from '../model/passkey.ts';
import { integer, type Row, text } from './rows.ts';

// Passkey rows (migrations SQLite 0018, PostgreSQL 0013) read back the same on either driver.

export function passkeyOf(row: Row): PasskeyRecord {
  const lastUsed = row['last_used_at'];
  return {
    credential_id: text(row, 'credential_id'),
    subject_id: text(row, 'subject_id'),
    public_key: text(row, 'public_key'),
    counter: integer(row, 'counter'),
    transports: JSON.parse(text(row, 'transports')) as string[],
    name: text(row, 'name'),
    created_at: text(row, 'created_at'),
    ...(typeof lastUsed === 'string' ? { last_used_at: lastUsed } : {}),
  };
}

export function ticketOf(row: Row): PasskeyTicket {
  const subject = row['subject_id'];
  return {
    ticket_hash: text(row, 'ticket_hash'),
    kind: text(row, 'kind') as PasskeyTicketKind,
    ...(typeof subject === 'string' ? { subject_id: subject } : {}),
    body: text(row, 'body'),
    expires_at: text(row, 'expires_at'),
  };
}
