// The person a per-person verb acts on: the integer id or UUID as the first argument, or
// `--distinct-id <id>` instead of it. One code path for every verb (and `persons get`): the
// choice is checked before anything is sent, and a distinct id is looked up once, by the
// persons list's `distinct_id` filter, before any confirmation or write.
import { Option } from 'commander';
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { UsageError } from '../../../errors.js';
import { checkPersonId, findByDistinctId, type ListedPerson } from '../../../api/persons.js';

export const ID_ARGUMENT = 'the integer id or the UUID of the person (or give --distinct-id instead)';

/** `--distinct-id`; the verb declares its id argument as optional (`[id]`). */
export function distinctIdOption(): Option {
  return new Option('--distinct-id <id>', 'find the person by one of their distinct ids instead of giving an id');
}

export interface PersonTarget {
  /** The id or UUID given, checked and trimmed, when one was. */
  id?: string;
  distinctId?: string;
  /** The other positional arguments, after the id when there was one. */
  rest: string[];
}

/**
 * Splits the positionals of `verb` (declared all optional, so that `--distinct-id` can stand in
 * for the first) into the id and the rest, and checks that exactly one of id and --distinct-id
 * was given, that every one of `restNames` is there, and that the id is an integer or a UUID.
 */
export function personTarget(
  verb: string,
  distinctId: string | undefined,
  positionals: (string | undefined)[],
  restNames: string[] = [],
): PersonTarget {
  const given = positionals.filter((p): p is string => p !== undefined);
  const byDistinctId = distinctId !== undefined;
  const id = byDistinctId ? undefined : given[0];
  const rest = byDistinctId ? given : given.slice(1);
  const usage = `hogctl persons ${verb} ${['<id>', ...restNames.map((n) => `<${n}>`)].join(' ')}`;
  const alternative = `hogctl persons ${verb} --distinct-id <id> ${restNames.map((n) => `<${n}>`).join(' ')}`.trimEnd();
  if (byDistinctId && distinctId.trim() === '') throw new UsageError('--distinct-id is empty', `e.g. \`${alternative}\``);
  if (!byDistinctId && id === undefined)
    throw new UsageError('give a person id or --distinct-id', `e.g. \`${usage}\` or \`${alternative}\``);
  if (rest.length > restNames.length) {
    throw new UsageError(
      byDistinctId ? `too many arguments: with --distinct-id, give no person id` : `too many arguments for \`hogctl persons ${verb}\``,
      `usage: \`${usage}\` or \`${alternative}\``,
    );
  }
  const missing = restNames[rest.length];
  if (missing !== undefined) throw new UsageError(`missing argument <${missing}>`, `usage: \`${usage}\` or \`${alternative}\``);
  return { id: id === undefined ? undefined : checkPersonId(id), distinctId, rest };
}

/** The person a verb acts on, found once: the id to put in the path, and the person when finding
 * it read them (a distinct id is looked up in the persons list). */
export interface ResolvedPerson {
  id: string;
  listed?: ListedPerson;
}

/** The id given, or the UUID of the person with the distinct id, with that person. */
export async function resolvePerson(ctx: Context, target: PersonTarget, client?: ApiClient): Promise<ResolvedPerson> {
  if (target.id !== undefined) return { id: target.id };
  const projectId = await ctx.projectId();
  const listed = await findByDistinctId(client ?? (await ctx.api()), projectId, target.distinctId as string);
  return { id: listed.uuid, listed };
}

/** The id to put in the path: the one given, or the UUID of the person with the distinct id. */
export async function resolvePersonId(ctx: Context, target: PersonTarget, client?: ApiClient): Promise<string> {
  return (await resolvePerson(ctx, target, client)).id;
}
