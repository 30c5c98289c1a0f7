// How messages name a person and a user (ARCHITECTURE.md §3), in one place so that a session
// never calls one person three things. A person is `person <uuid>` once hogctl knows the UUID,
// followed by what the user named them by when that was something else: `person 0199… (distinct
// id user-249)`, `person 0199… (id 249)`, `person 0199… (e-mail lee@example.net)`. Only when nothing was read that gives the UUID (an
// integer id with --yes) is the person `person 249`. A user is `user <uuid>`, and the signed-in
// user (`@me`) is "you".
import { isUuid } from '../api/uuid.js';

export interface PersonNamed {
  /** The id as given (an integer id or a UUID), or the UUID a distinct id was resolved to. */
  id?: string;
  distinctId?: string;
  /** The e-mail address the person was found by (`--email`). */
  email?: string;
  /** The UUID, when a read of the person gave it. */
  uuid?: string;
}

export function personName(p: PersonNamed): string {
  const uuid = p.uuid ?? (p.id !== undefined && isUuid(p.id) ? p.id : undefined);
  const given =
    p.distinctId !== undefined
      ? `distinct id ${p.distinctId}`
      : p.email !== undefined
        ? `e-mail ${p.email}`
        : p.id !== undefined && uuid !== undefined && p.id !== uuid
          ? `id ${p.id}`
          : undefined;
  if (uuid !== undefined) return `person ${uuid.toLowerCase()}${given ? ` (${given})` : ''}`;
  if (p.id !== undefined) return `person ${p.id}`;
  return p.email !== undefined ? `the person with e-mail ${p.email}` : `the person with distinct id ${p.distinctId}`;
}

/** `@me` is "you"; any other user is named by UUID. */
export function userName(user: string): string {
  return user === '@me' ? 'you' : `user ${user}`;
}
