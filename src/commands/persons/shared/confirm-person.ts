// The confirmation of a destructive person verb (ARCHITECTURE.md §5). Off a terminal without --yes it
// refuses before anything is sent; on a terminal it shows the person (read by retrieve, unless the
// distinct-id lookup already read them), so the question shows
// who will be affected (name, ids, distinct ids) and where (profile, host, project).
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import type { ListedPerson, PersonRecord } from '../../../api/persons.js';
import type { ResolvedPerson } from './person-target.js';
import { confirmOrRefuse } from '../../../cli/confirm.js';
import { getPerson } from '../../../api/persons.js';

/** The person the question shows: as retrieve answers, or as the persons list found it. */
export type ShownPerson = PersonRecord | ListedPerson;

export interface PersonConfirmation {
  yes?: boolean;
  /** The person as resolved: the id as the user gave it, or the person its distinct id found. */
  person: ResolvedPerson;
  /** What will happen, as a verb phrase: "delete person 42". */
  action: string;
  /** Lines describing the consequences, shown under the person (which they may depend on). */
  consequences: string[] | ((person: ShownPerson) => string[]);
  /** Checks the request against the person before asking; throws when it cannot work. */
  check?: (person: ShownPerson) => void;
  question: string;
}

const SHOWN_DISTINCT_IDS = 10;
/** A persons list item names at most this many of the person's distinct ids. */
const LISTED_DISTINCT_IDS = 1000;

/**
 * The person as a verb shows or checks it: the one the distinct-id lookup found, when it names
 * all their distinct ids, else retrieve's record (one GET).
 */
export async function personToShow(client: ApiClient, projectId: string, resolved: ResolvedPerson): Promise<ShownPerson> {
  const { listed } = resolved;
  if (listed && listed.distinct_ids.length < LISTED_DISTINCT_IDS) return listed;
  return getPerson(client, projectId, resolved.id);
}

/** Returns the person when it was read for the question, undefined with --yes. */
export async function confirmPersonAction(ctx: Context, c: PersonConfirmation): Promise<ShownPerson | undefined> {
  if (c.yes) return undefined;
  const projectId = await ctx.projectId();
  const prompter = await ctx.prompter();
  if (!prompter.interactive) {
    await confirmOrRefuse(ctx, { summary: `${c.action} in project ${projectId}`, question: c.question });
    return undefined;
  }
  const settings = await ctx.settings();
  const person = await personToShow(await ctx.api(), projectId, c.person);
  c.check?.(person);
  const consequences = typeof c.consequences === 'function' ? c.consequences(person) : c.consequences;
  const ids = person.distinct_ids ?? [];
  const shown =
    ids.slice(0, SHOWN_DISTINCT_IDS).join(', ') + (ids.length > SHOWN_DISTINCT_IDS ? `, … (${ids.length - SHOWN_DISTINCT_IDS} more)` : '');
  const summary = [
    `About to ${c.action}:`,
    // A list item's id is the UUID (docs/server-contract.md §6.3): the integer key shows only from retrieve.
    `  person        ${person.name ?? '(no name)'} (${person.id === person.uuid ? '' : `id ${person.id}, `}uuid ${person.uuid})`,
    `  distinct ids  ${shown || '(none)'}`,
    `  profile       ${settings.profileName ?? '(none: settings from flags and environment)'}`,
    `  host          ${settings.baseUrl}`,
    `  project       ${projectId}`,
    ...consequences.map((line) => `  ${line}`),
  ].join('\n');
  await confirmOrRefuse(ctx, { summary, question: c.question });
  return person;
}
