import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { RecordWriter } from '../../io/output.js';
import { maskKey } from '../../config/settings.js';

export function profileListCommand(): Command {
  return new Command('list')
    .alias('ls')
    .summary('list profiles (the current one is marked, keys masked)')
    .description(
      'List the saved profiles with their base URL, project and a masked API key; the current one (used when no --profile or HOGCTL_PROFILE says otherwise) is marked. ' +
        'Profiles live in the config directory (HOGCTL_CONFIG_DIR, else ~/.config/hogctl).',
    )
    .addHelpText('after', examples('hogctl profile list', 'hogctl profile list -o json'))
    .action(withContext(profileListRun));
}

export async function profileListRun(ctx: Context): Promise<void> {
  const store = await ctx.store();
  const current = store.current();
  const rows = store.names().map((name) => {
    const p = store.get(name)!;
    return {
      current: name === current,
      name,
      base_url: p.base_url,
      project_id: p.project_id ?? null,
      api_key: maskKey(store.apiKey(name)),
    };
  });
  // `current` is a JSON boolean for scripts; a table marks the current profile with `*`.
  const fields = ['current', 'name', 'base_url', 'project_id', 'api_key'];
  const writer = new RecordWriter(await ctx.output(), { columns: fields, fields, display: { current: (v) => (v === true ? '*' : '') } });
  await writer.writePage(rows);
  await writer.end();
  if (rows.length === 0) ctx.info('no profiles yet: add one with `hogctl profile add <name>`');
}
