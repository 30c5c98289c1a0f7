import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, withContext } from '../with-context.js';
import { checkProfileName } from '../../config/profiles.js';
import { normalizeBaseUrl, checkProjectId, DEFAULT_BASE_URL, maskKey } from '../../config/settings.js';

export interface ProfileAddOptions {
  apiKeyStdin?: boolean;
  allowInsecureHttp?: boolean;
  use?: boolean;
}

export function profileAddCommand(): Command {
  return new Command('add')
    .summary('create or update a profile (base URL, project, API key)')
    .description(
      'Save a profile. On a terminal, hogctl asks for what is missing: the base URL, the API key (hidden) and the project, picked from the projects the key can see. Off a terminal, give --base-url and --project, and pipe the key with --api-key-stdin. The key is stored in a private file (0600), never taken as a flag value.',
    )
    .argument('<name>', 'profile name, e.g. prod')
    .option('--api-key-stdin', 'read the personal API key from standard input')
    .option('--allow-insecure-http', 'allow sending the key over plain http:// to a host that is not loopback')
    .option('--use', 'make it the current profile')
    .addHelpText(
      'after',
      examples(
        'hogctl profile add prod',
        'printf %s "$POSTHOG_KEY" | hogctl profile add ci --base-url https://eu.posthog.com --project 42 --api-key-stdin',
      ),
    )
    .action(withContext(profileAddRun));
}

export async function profileAddRun(ctx: Context, options: ProfileAddOptions, name: string): Promise<void> {
  const { readSecretFromStdin } = await import('../../io/read-secret.js');
  checkProfileName(name);
  const store = await ctx.store();
  const existing = store.get(name);
  const prompter = await ctx.prompter();
  const ask = prompter.interactive;

  let baseUrl = ctx.globals.baseUrl ?? existing?.base_url;
  if (!baseUrl && ask) {
    baseUrl = await prompter.input('PostHog base URL (https://us.posthog.com, https://eu.posthog.com or your own):', {
      default: DEFAULT_BASE_URL,
      validate: (v) => {
        try {
          normalizeBaseUrl(v);
          return true;
        } catch (err) {
          return (err as Error).message;
        }
      },
    });
  }
  const base = normalizeBaseUrl(baseUrl ?? DEFAULT_BASE_URL);

  let apiKey: string | undefined;
  if (options.apiKeyStdin) apiKey = await readSecretFromStdin(ctx.io.stdin, 'API key', '--api-key-stdin');
  else if (ask && !store.apiKey(name)) apiKey = (await prompter.password('Personal API key (input hidden):')).trim() || undefined;
  const key = apiKey ?? store.apiKey(name) ?? ctx.env.HOGCTL_API_KEY;

  let projectId = ctx.globals.project ?? base.projectId ?? existing?.project_id;
  if (!projectId) {
    if (!ask) throw new UsageError('no project given', 'pass --project <id>; `hogctl projects list` shows the ids your key can see');
    if (!key) throw new UsageError('cannot list projects without an API key', 'give the key when asked, or pass --project <id>');
    const [{ allProjects }] = await Promise.all([import('../../api/projects.js')]);
    const client = await ctx.client(
      { baseUrl: base.url, allowInsecureHttp: Boolean(options.allowInsecureHttp), sources: { baseUrl: 'flag' } },
      { headers: () => ({ authorization: `Bearer ${key}` }), secrets: () => [key] },
    );
    const projects = await allProjects(client);
    if (projects.length === 0) throw new UsageError('this API key sees no projects', 'check the key and the base URL, or pass --project <id>');
    projectId = String(
      await prompter.select(
        'Project:',
        projects.map((p) => ({ name: `${p.name} (${p.id})`, value: p.id })),
      ),
    );
  }
  checkProjectId(projectId);

  await store.save(name, { base_url: base.url, project_id: projectId, ...(options.allowInsecureHttp ? { allow_insecure_http: true } : {}) }, apiKey);
  if (options.use) await store.use(name);
  ctx.info(`✔ ${existing ? 'updated' : 'saved'} profile "${name}": ${base.url}, project ${projectId}, key ${maskKey(store.apiKey(name))}${store.current() === name ? ' (current)' : ''}`);
  if (!store.apiKey(name)) ctx.info('  no API key stored: set HOGCTL_API_KEY, or run `hogctl profile add` again with --api-key-stdin');
}
