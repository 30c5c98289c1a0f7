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
    .summary('delete a profile, its stored API key and its session')
    .description(
      'Delete a saved profile, the API key stored with it and its signed-in session, if any. Nothing changes on the server: the key stays valid until you revoke it in PostHog, and the session until it expires (`hogctl auth logout` first ends it there). Asks for confirmation on a terminal; pass --yes in scripts.',
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
    summary: `Profile "${name}" (${profile.base_url}, project ${profile.project_id ?? '-'}), its stored API key and its session will be deleted.`,
    question: `Delete profile "${name}"?`,
  });
  await store.remove(name);
  ctx.info(`✔ removed profile "${name}"`);
}
