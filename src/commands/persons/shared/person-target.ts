// The person a per-person verb acts on: the integer id or UUID as the first argument, or
// `--distinct-id <id>` or `--email <address>` instead of it. One code path for every verb (and
// `persons get`): the choice is checked before anything is sent, and a distinct id is looked up
// once, by the persons list's `distinct_id` filter, an address as an erasure finds it
// (get-by-email.ts), before any confirmation or write.
import { Option } from 'commander';
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { UsageError } from '../../../errors.js';
import { checkPersonId, findByDistinctId, type ListedPerson } from '../../../api/persons.js';

export const ID_ARGUMENT = 'the integer id or the UUID of the person (or give --distinct-id or --email instead)';

/** `--distinct-id`; the verb declares its id argument as optional (`[id]`). */
export function distinctIdOption(): Option {
  return new Option('--distinct-id <id>', 'find the person by one of their distinct ids instead of giving an id');
}

/** `--email`, the same lookup as `persons get --email` and an erasure's: one rule for addresses. */
export function emailOption(): Option {
  return new Option(
    '--email <address>',
    'find the person by e-mail address instead: the whole address, as the email property or a distinct id, ignoring the case of ASCII letters',
  );
}

/** How the person was named, when not by the id argument. */
export interface PersonNamedBy {
  distinctId?: string;
  email?: string;
}

export interface PersonTarget {
  /** The id or UUID given, checked and trimmed, when one was. */
  id?: string;
  distinctId?: string;
  email?: string;
  /** The other positional arguments, after the id when there was one. */
  rest: string[];
}

/**
 * Splits the positionals of `verb` (declared all optional, so that `--distinct-id` or `--email`
 * can stand in for the first) into the id and the rest, and checks that exactly one of id,
 * --distinct-id and --email was given, that every one of `restNames` is there, and that the id is
 * an integer or a UUID.
 */
export function personTarget(verb: string, by: PersonNamedBy, positionals: (string | undefined)[], restNames: string[] = []): PersonTarget {
  const given = positionals.filter((p): p is string => p !== undefined);
  const flag = namingFlag(by);
  const id = flag ? undefined : given[0];
  const rest = flag ? given : given.slice(1);
  const restText = restNames.map((n) => `<${n}>`).join(' ');
  const usage = `hogctl persons ${verb} ${['<id>', ...restNames.map((n) => `<${n}>`)].join(' ')}`;
  const alternative = `hogctl persons ${verb} --distinct-id <id> ${restText}`.trimEnd();
  const byEmail = `hogctl persons ${verb} --email <address> ${restText}`.trimEnd();
  if (flag && (by[flag.key] as string).trim() === '')
    throw new UsageError(`${flag.name} is empty`, `e.g. \`${flag.key === 'email' ? byEmail : alternative}\``);
  if (!flag && id === undefined)
    throw new UsageError('give a person id, --distinct-id or --email', `e.g. \`${usage}\`, \`${alternative}\` or \`${byEmail}\``);
  if (rest.length > restNames.length) {
    throw new UsageError(
      flag ? `too many arguments: with ${flag.name}, give no person id` : `too many arguments for \`hogctl persons ${verb}\``,
      `usage: \`${usage}\` or \`${alternative}\``,
    );
  }
  const missing = restNames[rest.length];
  if (missing !== undefined) throw new UsageError(`missing argument <${missing}>`, `usage: \`${usage}\` or \`${alternative}\``);
  const email = by.email?.trim();
  return { id: id === undefined ? undefined : checkPersonId(id), distinctId: by.distinctId, ...(email ? { email } : {}), rest };
}

/** The one of --distinct-id and --email given; both is a usage error. */
function namingFlag(by: PersonNamedBy): { key: keyof PersonNamedBy; name: string } | undefined {
  if (by.distinctId !== undefined && by.email !== undefined)
    throw new UsageError('give one of --distinct-id and --email', 'each names the person on its own');
  if (by.email !== undefined) return { key: 'email', name: '--email' };
  if (by.distinctId !== undefined) return { key: 'distinctId', name: '--distinct-id' };
  return undefined;
}

/** The person a verb acts on, found once: the id to put in the path, and the person when finding
 * it read them (a distinct id is looked up in the persons list). */
export interface ResolvedPerson {
  id: string;
  listed?: ListedPerson;
}

/** The id given, or the UUID of the person with the distinct id or address, with that person. */
export async function resolvePerson(ctx: Context, target: PersonTarget, client?: ApiClient): Promise<ResolvedPerson> {
  if (target.id !== undefined) return { id: target.id };
  if (target.email !== undefined) {
    // The erasure's lookup (HogQL, the query limit's wait) loads only for --email (ARCHITECTURE.md §6).
    const { onePersonWithAddress } = await import('./get-by-email.js');
    return { id: await onePersonWithAddress(ctx, target.email) };
  }
  const projectId = await ctx.projectId();
  const listed = await findByDistinctId(client ?? (await ctx.api()), projectId, target.distinctId as string);
  return { id: listed.uuid, listed };
}

/** The id to put in the path: the one given, or the UUID of the person with the distinct id. */
export async function resolvePersonId(ctx: Context, target: PersonTarget, client?: ApiClient): Promise<string> {
  return (await resolvePerson(ctx, target, client)).id;
}
