// Names that a server's answer puts into the bundle's paths, and the check that every path of the
// bundle stays inside it. A project id and a person's UUID have a fixed form in PostHog (an
// integer key, docs/server-contract.md §8; a UUID, docs/server-contract.md §6.1): a value of
// another form is not PostHog's answer, and is refused before anything is written, naming the
// host and the value. A session id is the SDK's own string (a UUIDv7 from posthog-js, but any text a
// client sent as `$session_id`): it is kept as it is when it is a plain name, and otherwise mapped
// to a plain stem and a hash of the whole id, so that two ids that differ only in punctuation or
// case never share a file. Whatever the names, `inBundle` checks the resolved path of every file
// and directory before it is written (issue 36, item 1: a project id `../../../../x/pwnp` once
// wrote persons' files outside --out).
import { createHash } from 'node:crypto';
import { resolve, sep } from 'node:path';
import { CliError, NotPostHogApiError } from '../../../errors.js';
import { isUuid } from '../../../api/uuid.js';

const PROJECT_ID = /^[1-9]\d{0,18}$/;
/** Kept as it is: lower case (a case-insensitive file system would merge `A` and `a`), no dot
 * (no `.`, `..` or hidden file, and the mapped names below are the only ones with one). */
const PLAIN = /^[a-z0-9][a-z0-9_-]{0,99}$/;

/** The directory of one person in the bundle, `project-<id>/person-<uuid>`; refuses ids that are
 * not PostHog's, naming the host that answered them. */
export function personDir(project: string, uuid: string, host: string): string {
  if (!PROJECT_ID.test(project)) throw notPostHogs(host, 'a project id', project, 'a project id is a whole number');
  if (!isUuid(uuid)) throw notPostHogs(host, 'a person UUID', uuid, 'a person is named by a UUID');
  return `project-${project}/person-${uuid.toLowerCase()}`;
}

function notPostHogs(host: string, what: string, value: string, form: string): NotPostHogApiError {
  return new NotPostHogApiError(
    `${host} answered ${what} ${JSON.stringify(value)}, which PostHog never gives (${form}); nothing was written`,
    'check --base-url: the host does not answer as PostHog does, or something in front of it rewrites its answers',
  );
}

/** A file name's stem for an id chosen by a client (a session id): the id when it is plain, else
 * a plain stem of it, a dot and 16 hex digits of its SHA-256. */
export function fileStem(id: string): string {
  if (PLAIN.test(id)) return id;
  const stem = id
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[_-]+/, '')
    .slice(0, 40);
  return `${stem || 'id'}.${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
}

/** The path of `parts` in the bundle, resolved; refused when it would be the bundle itself or
 * outside it. Every path the export writes is made here. */
export function inBundle(bundle: string, ...parts: string[]): string {
  const root = resolve(bundle);
  const path = resolve(root, ...parts);
  if (!path.startsWith(root + sep)) {
    throw new CliError(
      `refusing to write ${path}: it is not inside the bundle ${root}`,
      'nothing was written there; this is a bug in hogctl, please report it',
    );
  }
  return path;
}

/** The directory of the events of the identifiers given that are distinct ids of no person in a
 * project, `project-<id>/distinct-ids-of-no-person` (a person's is `person-<uuid>`: never the same). */
export function noPersonDir(project: string, host: string): string {
  if (!PROJECT_ID.test(project)) throw notPostHogs(host, 'a project id', project, 'a project id is a whole number');
  return `project-${project}/distinct-ids-of-no-person`;
}
