import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePerson } from './shared/person-target.js';
import { confirmPersonAction, personToShow, type ShownPerson } from './shared/confirm-person.js';
import { prepareReport } from './shared/report.js';
import { unconfirmed, checkPerson } from './shared/unconfirmed.js';
import * as api from '../../api/person-actions.js';
import { counted } from '../../io/counts.js';

export interface PersonsSplitOptions {
  email?: string;
  distinctId?: string;
  mainDistinctId?: string;
  distinctIds?: string;
  yes?: boolean;
}

export function personsSplitCommand(): Command {
  return new Command('split')
    .summary('split distinct ids off a merged person')
    .description(
      'Undo a wrong merge: move distinct ids off a person, each onto its own new person. --main-distinct-id keeps that one and moves every other; ' +
        '--distinct-ids moves only those listed. The original person keeps its properties. PostHog splits asynchronously; ' +
        'each new person gets a UUID derived from the project and the distinct id. Asks for confirmation on a terminal; pass --yes in scripts.',
    )
    .argument('[id]', ID_ARGUMENT)
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .option('--main-distinct-id <id>', 'the distinct id to keep; all others move off')
    .option('--distinct-ids <a,b,...>', 'the distinct ids to move off (comma-separated)')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'after',
      examples('hogctl persons split 42 --main-distinct-id user-881', 'hogctl persons split 42 --distinct-ids device-1,device-2 --yes'),
    )
    .action(withContext(personsSplitRun));
}

function parseList(raw: string): string[] {
  const items = raw.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) {
    throw new UsageError(
      `invalid --distinct-ids "${raw}": every entry must be a non-empty distinct id`,
      'e.g. --distinct-ids device-1,device-2',
    );
  }
  return [...new Set(items)];
}

function checkMain(person: ShownPerson, main: string): void {
  if (!person.distinct_ids.includes(main)) {
    throw new UsageError(
      `--main-distinct-id "${main}" is not a distinct id of person ${person.id}`,
      `its distinct ids are: ${person.distinct_ids.join(', ') || '(none)'}`,
    );
  }
}

export async function personsSplitRun(ctx: Context, options: PersonsSplitOptions, given?: string): Promise<void> {
  const target = personTarget('split', options, [given]);
  const main = options.mainDistinctId;
  if ((main === undefined) === (options.distinctIds === undefined)) {
    throw new UsageError(
      'give either --main-distinct-id or --distinct-ids',
      'e.g. `hogctl persons split 42 --main-distinct-id user-881` keeps that one and moves the others off',
    );
  }
  if (main !== undefined && main.trim() === '') throw new UsageError('--main-distinct-id is empty');
  const toSplit = options.distinctIds === undefined ? undefined : parseList(options.distinctIds);

  const report = await prepareReport(ctx, ['person', main !== undefined ? 'main_distinct_id' : 'distinct_ids_to_split', 'status']);
  const resolved = await resolvePerson(ctx, target);
  const { id } = resolved;
  let person = await confirmPersonAction(ctx, {
    yes: options.yes,
    person: resolved,
    action: `split ${personName({ ...target, id: resolved.id, uuid: resolved.listed?.uuid })}`,
    check: (p) => main !== undefined && checkMain(p, main),
    consequences: (p) => {
      const moving = toSplit ?? p.distinct_ids.filter((d) => d !== main);
      return [
        `will move ${counted(moving.length, 'distinct id')} onto a new person each: ${moving.join(', ') || '(none)'}`,
        `the person keeps ${main !== undefined ? main : 'the other distinct ids'} and all its properties`,
      ];
    },
    question: 'Split this person?',
  });
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  // The server does not check main_distinct_id: one that is not the person's would move every id off.
  if (main !== undefined && !person) {
    person = await personToShow(client, projectId, resolved);
    checkMain(person, main);
  }
  const body = main !== undefined ? { main_distinct_id: main } : { distinct_ids_to_split: toSplit };
  const name = personName({ ...target, id, uuid: person?.uuid ?? resolved.listed?.uuid });
  const status = await unconfirmed(
    `the split of ${name}`,
    `${checkPerson(id)}: the distinct ids it still lists were not moved; run the command again only for those`,
    () => api.splitPerson(client, projectId, id, body),
  );
  await report({ person: id, ...body, status }, `split of ${name} accepted`, [
    'PostHog splits asynchronously: each moved distinct id gets its own new person in a few seconds.',
  ]);
}
