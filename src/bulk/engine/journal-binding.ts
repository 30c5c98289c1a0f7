// Whether a journal may be resumed by this run: the same host, projects, input, command and the
// kind's own fields, or a refusal that says what differs.
import { UsageError } from '../../errors.js';
import type { IdKind } from '../input/validate.js';
import { counted } from '../../io/counts.js';
import { ENGINE_HEADER_FIELDS, type JournalHeader, type KindBinding, type KindFields } from './journal-format.js';

const KIND_FLAGS: Record<IdKind, string> = {
  person_ids: 'person ids',
  distinct_ids: '--distinct-ids',
  emails: '--emails',
  mixed: 'a file of mixed identifiers',
  selection: 'a selection',
};

/** What a journal must match to be resumed by this run. */
export type Binding = Pick<JournalHeader, 'host' | 'id_kind'> & {
  command: string;
  projects: string[];
  input: Pick<JournalHeader['input'], 'id_list_sha256' | 'ids' | 'file'>;
  /** The kind's own fields, and how it names them. */
  kind: KindBinding;
};

/** The kind's fields of a journal's header: every field that is not the engine's. */
export function kindFieldsOf(header: JournalHeader): KindFields {
  return Object.fromEntries(Object.entries(header).filter(([k]) => !(ENGINE_HEADER_FIELDS as readonly string[]).includes(k)));
}

/** The command of a journal's job. */
export function journalCommand(header: JournalHeader): string {
  return header.command;
}

/** JSON with the keys of every object sorted: the same value gives the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The projects a journal is bound to. */
export function journalProjects(header: JournalHeader): string[] {
  return header.projects ?? [header.project];
}

/** "project 1", "projects 1, 2 and 4". */
export function describeProjects(projects: readonly string[]): string {
  if (projects.length === 1) return `project ${projects[0]}`;
  return `projects ${projects.slice(0, -1).join(', ')} and ${projects[projects.length - 1]}`;
}

/** Refuses to resume a journal written for other ids, other projects, another command or other flags. */
export function checkBinding(path: string, header: JournalHeader, now: Binding): void {
  const fresh = 'run with the same input and flags to resume it, or pass another --journal to start a new run';
  const then = journalProjects(header);
  if (header.host !== now.host || then.join(',') !== now.projects.join(',')) {
    throw new UsageError(
      `journal ${path} belongs to ${describeProjects(then)} on ${header.host}, not ${describeProjects(now.projects)} on ${now.host}`,
      fresh,
    );
  }
  if (header.input.id_list_sha256 !== now.input.id_list_sha256) {
    throw new UsageError(
      `journal ${path} was written for another input: ${header.input.file} with ${counted(header.input.ids, 'id')} (sha256 ${header.input.id_list_sha256.slice(0, 12)}…), ` +
        `but ${now.input.file} has ${counted(now.input.ids, 'id')} (sha256 ${now.input.id_list_sha256.slice(0, 12)}…)`,
      fresh,
    );
  }
  const commandThen = journalCommand(header);
  if (commandThen !== now.command)
    throw new UsageError(`journal ${path} is of \`hogctl ${commandThen}\`, not \`hogctl ${now.command}\``, fresh);
  const names = Object.keys(now.kind.fields);
  const recorded: KindFields = Object.fromEntries(names.map((k) => [k, header[k]]));
  if (header.id_kind !== now.id_kind || names.some((k) => canonical(recorded[k]) !== canonical(now.kind.fields[k]))) {
    const describe = (kind: IdKind, fields: KindFields) => [KIND_FLAGS[kind], now.kind.describe(fields)].filter(Boolean).join(' ');
    throw new UsageError(
      `journal ${path} was written with other flags (${describe(header.id_kind, recorded)}); this run has ${describe(now.id_kind, now.kind.fields)}`,
      fresh,
    );
  }
}
