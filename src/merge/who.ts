// Who a candidate is, in the words a reviewer tells persons apart by: the e-mail address and the
// name PostHog's persons list shows, whether the person is identified, when it was created and last
// seen, and its events. PostHog displays a person by the first of its display-name properties that
// is set (frontend/src/lib/constants.tsx PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES: email, Email,
// $email, name, Name, username, Username, UserName); the e-mail ones and the others are shown
// apart here, since an address and a name are what tell a device person from a signed-in one.
import { counted } from '../io/counts.js';
import type { Candidate } from './find-duplicates.js';

const EMAIL_PROPERTIES = ['email', 'Email', '$email'];
const NAME_PROPERTIES = ['name', 'Name', 'username', 'Username', 'UserName'];

const first = (properties: Record<string, unknown>, names: string[]) =>
  names.map((n) => properties[n]).find((v) => v !== undefined && v !== null && v !== '');

/** The e-mail address as stored (spaces and letter case included), or undefined. */
export function emailOf(p: Pick<Candidate, 'properties'>): unknown {
  return first(p.properties, EMAIL_PROPERTIES);
}

/** The name PostHog would display after the address, or undefined. */
export function nameOf(p: Pick<Candidate, 'properties'>): unknown {
  return first(p.properties, NAME_PROPERTIES);
}

/** A value as text for a cell: a string as it is, anything else as JSON, nothing as ''. */
export function cell(value: unknown): string {
  return value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

/** "2026-11-01T10:00:00.000000Z" → "2026-11-01 10:00" (UTC, as the server gives it). */
export const minute = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) : 'never');

/** `email " ana@x.io", name "Ana"`: quoted, so that spaces around an address show; `(none)` when unset. */
export function identityOf(p: Pick<Candidate, 'properties'>): string {
  const said = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));
  return `email ${said(emailOf(p))}, name ${said(nameOf(p))}`;
}

/**
 * One line: `email " ana@x.io", name "Ana", identified, 12 events, created …, last seen …`. Values
 * are quoted, so that spaces around an address show. A person the journal kept (on --resume) has
 * no created time, events or identified state recorded: only its address and name are said.
 */
export function whoIs(p: Candidate): string {
  const parts = [identityOf(p)];
  if (p.created_at !== '')
    parts.push(
      p.is_identified ? 'identified' : 'not identified',
      counted(p.event_count, 'event'),
      `created ${minute(p.created_at)}`,
      `last seen ${minute(p.last_seen)}`,
    );
  return parts.join(', ');
}
