import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { RecordWriter } from '../../io/output.js';
import { listProjects, PROJECT_FIELDS } from '../../api/projects.js';

export interface ProjectsListOptions {
  search?: string;
}

export function projectsListCommand(): Command {
  return new Command('list')
    .alias('ls')
    .summary('list the projects the API key can see')
    .description(
      'List the projects the API key (or a key scoped to some projects) can see, with their ids: give an id to --project, HOGCTL_PROJECT_ID or `hogctl profile add`.',
    )
    .option('--search <text>', 'only projects whose name contains this')
    .addHelpText('after', examples('hogctl projects list', 'hogctl projects list -o json --fields id,name'))
    .action(withContext(projectsListRun));
}

export async function projectsListRun(ctx: Context, options: ProjectsListOptions): Promise<void> {
  const writer = new RecordWriter(await ctx.output(), { columns: ['id', 'name', 'organization', 'timezone'], fields: PROJECT_FIELDS });
  for await (const page of listProjects(await ctx.api(), { search: options.search, signal: ctx.deps.signal })) await writer.writePage(page);
  await writer.end();
  if (writer.count === 0) ctx.info('no projects visible to this key');
}
