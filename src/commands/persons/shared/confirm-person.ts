// The confirmation of a destructive person verb (ARCHITECTURE.md §5). Off a terminal without --yes it
// refuses before anything is sent; on a terminal it first reads the person, so the question shows
// who will be affected (name, ids, distinct ids) and where (profile, host, project).
import type { Context } from '../../../context.js';
import type { PersonRecord } from '../../../api/persons.js';
import { confirmOrRefuse } from '../../../cli/confirm.js';
import { getPerson } from '../../../api/persons.js';

export interface PersonConfirmation {
  yes?: boolean;
  /** The id as the user gave it. */
  id: string;
  /** What will happen, as a verb phrase: "delete person 42". */
  action: string;
  /** Lines describing the consequences, shown under the person (which they may depend on). */
  consequences: string[] | ((person: PersonRecord) => string[]);
  /** Checks the request against the person before asking; throws when it cannot work. */
  check?: (person: PersonRecord) => void;
  question: string;
}

const SHOWN_DISTINCT_IDS = 10;

/** Returns the person when it was read for the question, undefined with --yes. */
export async function confirmPersonAction(ctx: Context, c: PersonConfirmation): Promise<PersonRecord | undefined> {
  if (c.yes) return undefined;
  const projectId = await ctx.projectId();
  const prompter = await ctx.prompter();
  if (!prompter.interactive) {
    await confirmOrRefuse(ctx, { summary: `${c.action} in project ${projectId}`, question: c.question });
    return undefined;
  }
  const settings = await ctx.settings();
  const person = await getPerson(await ctx.api(), projectId, c.id);
  c.check?.(person);
  const consequences = typeof c.consequences === 'function' ? c.consequences(person) : c.consequences;
  const ids = person.distinct_ids ?? [];
  const shown =
    ids.slice(0, SHOWN_DISTINCT_IDS).join(', ') + (ids.length > SHOWN_DISTINCT_IDS ? `, … (${ids.length - SHOWN_DISTINCT_IDS} more)` : '');
  const summary = [
    `About to ${c.action}:`,
    `  person        ${person.name ?? '(no name)'} (id ${person.id}, uuid ${person.uuid})`,
    `  distinct ids  ${shown || '(none)'}`,
    `  profile       ${settings.profileName ?? '(none: settings from flags and environment)'}`,
    `  host          ${settings.baseUrl}`,
    `  project       ${projectId}`,
    ...consequences.map((line) => `  ${line}`),
  ].join('\n');
  await confirmOrRefuse(ctx, { summary, question: c.question });
  return person;
}
