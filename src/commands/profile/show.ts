import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { writeSummary } from '../../io/summary.js';
import { maskKey } from '../../config/settings.js';
import { describeCurrentKey, keyInWords } from '../../api/personal-api-keys.js';

export function profileShowCommand(): Command {
  return new Command('show')
    .summary('show a profile and the settings in effect (key masked)')
    .description(
      'Show a profile. Without a name, show the settings every command would use now, and where each comes from (flag, environment, profile).',
    )
    .argument('[name]', 'profile name (default: the settings in effect)')
    .addHelpText('after', examples('hogctl profile show', 'hogctl profile show prod -o json'))
    .action(withContext(profileShowRun));
}

export async function profileShowRun(ctx: Context, _options: unknown, name?: string): Promise<void> {
  const store = await ctx.store();
  let record: Record<string, unknown>;
  let summary: string[];
  if (name) {
    const p = store.require(name);
    record = {
      name,
      current: store.current() === name,
      base_url: p.base_url,
      project_id: p.project_id ?? null,
      api_key: maskKey(store.apiKey(name)),
      allow_insecure_http: Boolean(p.allow_insecure_http),
      config_file: store.configPath,
    };
    summary = [
      `Profile "${name}"${record.current ? ' (the current one)' : ''}`,
      `  site:     ${p.base_url}${p.allow_insecure_http ? ' (plain http allowed)' : ''}`,
      `  project:  ${p.project_id ?? 'none saved: give --project'}`,
      `  API key:  ${record.api_key ?? 'none saved'}`,
      `  saved in: ${store.configPath}`,
    ];
  } else {
    const s = await ctx.settings();
    if (!s.profileName && !s.sources.projectId && !s.apiKey) {
      throw new UsageError('no profile yet and nothing set in the environment', 'add one with `hogctl profile add <name>`');
    }
    // Each value and where it comes from (flag, env, profile, default), as separate fields so
    // that scripts read plain values.
    record = {
      profile: s.profileName ?? null,
      base_url: s.baseUrl,
      base_url_source: s.sources.baseUrl,
      project_id: s.projectId ?? null,
      project_id_source: s.projectId ? (s.sources.projectId ?? null) : null,
      api_key: s.apiKey ? maskKey(s.apiKey) : null,
      api_key_source: s.apiKey ? (s.sources.apiKey ?? null) : null,
      ...(s.apiKey ? await describeCurrentKey(await ctx.api(), (line) => ctx.info(line)) : {}),
      config_file: store.configPath,
    };
    const from = (source: string | null | undefined, variable: string) =>
      source === 'flag' ? 'from a flag' : source === 'env' ? `from ${variable}` : source === 'profile' ? 'from the profile' : 'the default';
    summary = [
      s.profileName ? `Settings in effect (profile "${s.profileName}")` : 'Settings in effect (no profile)',
      `  site:     ${s.baseUrl} (${from(s.sources.baseUrl, 'HOGCTL_BASE_URL')})`,
      `  project:  ${s.projectId ? `${s.projectId} (${from(s.sources.projectId, 'HOGCTL_PROJECT_ID')})` : 'none: give --project'}`,
      `  API key:  ${s.apiKey ? `${record.api_key} (${from(s.sources.apiKey, 'HOGCTL_API_KEY')})${keyInWords(record)}` : 'none'}`,
      `  saved in: ${store.configPath}`,
    ];
  }
  await writeSummary(await ctx.output(), summary, record, { columns: Object.keys(record), fields: Object.keys(record) });
}
