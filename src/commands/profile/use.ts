import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';

export function profileUseCommand(): Command {
  return new Command('use')
    .summary('make a profile the current one')
    .description('Make a saved profile the current one: commands use it when neither --profile nor HOGCTL_PROFILE names another.')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('hogctl profile use prod'))
    .action(withContext(profileUseRun));
}

export async function profileUseRun(ctx: Context, _options: unknown, name: string): Promise<void> {
  await (await ctx.store()).use(name);
  ctx.info(`✔ now using profile "${name}"`);
}
