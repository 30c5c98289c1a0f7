import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { confirmOrRefuse } from '../../cli/confirm.js';

export interface ProfileRemoveOptions {
  yes?: boolean;
}

export function profileRemoveCommand(): Command {
  return new Command('remove')
    .alias('rm')
    .summary('delete a profile and its stored API key')
    .description(
      'Delete a saved profile and the API key stored with it. Nothing changes on the server: the key itself stays valid until you revoke it in PostHog. Asks for confirmation on a terminal; pass --yes in scripts.',
    )
    .argument('<name>', 'profile name')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', examples('hogctl profile remove staging', 'hogctl profile remove old --yes'))
    .action(withContext(profileRemoveRun));
}

export async function profileRemoveRun(ctx: Context, options: ProfileRemoveOptions, name: string): Promise<void> {
  const store = await ctx.store();
  const profile = store.require(name);
  await confirmOrRefuse(ctx, {
    yes: options.yes,
    summary: `Profile "${name}" (${profile.base_url}, project ${profile.project_id ?? '-'}) and its stored API key will be deleted.`,
    question: `Delete profile "${name}"?`,
  });
  await store.remove(name);
  ctx.info(`✔ removed profile "${name}"`);
}
