import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError, type CliError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { checkProfileName } from '../../config/profiles.js';
import { normalizeBaseUrl, checkProjectId, DEFAULT_BASE_URL, maskKey } from '../../config/settings.js';
import { readSecretFromStdin } from '../../io/read-secret.js';
import { confirmOrRefuse } from '../../cli/confirm.js';
import { checkKey, checkProject, type Problem } from './shared/verify.js';
import { isProjectId, projectByName } from '../../config/project-name.js';
import { allProjects } from '../../api/projects.js';

export interface ProfileAddOptions {
  apiKeyStdin?: boolean;
  allowInsecureHttp?: boolean;
  captureUrl?: string;
  use?: boolean;
  yes?: boolean;
  /** false with --no-verify. */
  verify?: boolean;
}

/** Wrong keys or projects given at the prompts before giving up. */
const ATTEMPTS = 3;

export function profileAddCommand(): Command {
  return new Command('add')
    .summary('create or update a profile (base URL, project, API key)')
    .description(
      'Save a profile. On a terminal, hogctl asks for what is missing: the base URL, the API key (hidden) and the project, picked from the projects the key can see. Off a terminal, give --base-url and --project, and pipe the key with --api-key-stdin. The key is stored in a private file (0600), never taken as a flag value. ' +
        'The key and the project are checked against the server first; a site that cannot be reached is not saved (--no-verify saves unchecked, for an offline set-up). Replacing an existing profile asks first and asks every field again, its saved value the default (off a terminal: --yes, and the flags given replace the saved values).',
    )
    .argument('<name>', 'profile name, e.g. prod')
    .option('--api-key-stdin', 'read the personal API key from standard input')
    .option('--allow-insecure-http', 'allow sending the key over plain http:// to a host that is not loopback')
    .option(
      '--capture-url <url>',
      'where `persons bulk-update` and `persons merge` send capture requests, when not the site derived from the base URL (us.i.posthog.com for us.posthog.com, eu.i.posthog.com for eu.posthog.com, the site itself when self-hosted)',
    )
    .option('--use', 'make it the current profile')
    .option('-y, --yes', 'replace an existing profile without asking')
    .option('--no-verify', 'do not check the key and project against the server (offline set-up)')
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
  checkProfileName(name);
  const store = await ctx.store();
  const existing = store.get(name);
  const stored = store.apiKey(name);
  const prompter = await ctx.prompter();
  // A --base-url that is not one is refused before anything is asked.
  const given = ctx.globals.baseUrl === undefined ? undefined : normalizeBaseUrl(ctx.globals.baseUrl);
  const a: Adding = { ctx, options, name, existing, stored: keyFor(given?.url, existing, stored), prompter, ask: prompter.interactive };
  if (!a.ask) refuseMissingFlags(a, given);
  if (existing) {
    await confirmOrRefuse(ctx, {
      yes: options.yes,
      summary: `Profile "${name}" exists (${existing.base_url}, project ${existing.project_id ?? '-'}, key ${maskKey(stored)}) and will be replaced${a.ask ? '; each answer defaults to its saved value' : ''}.`,
      question: `Replace profile "${name}"?`,
    });
  }
  const base = await askBaseUrl(a);
  a.stored = keyFor(base.url, existing, stored);
  const verify = options.verify !== false;
  const { apiKey, client } = await checkedKey(a, base.url, verify);
  const projectId = await checkedProject(a, base, client, verify);
  await store.save(
    name,
    {
      base_url: base.url,
      project_id: projectId,
      ...(options.allowInsecureHttp ? { allow_insecure_http: true } : {}),
      ...(options.captureUrl !== undefined
        ? { capture_url: normalizeBaseUrl(options.captureUrl, 'capture').url }
        : existing?.capture_url && existing.base_url === base.url
          ? { capture_url: existing.capture_url }
          : {}),
    },
    apiKey,
  );
  if (options.use) await store.use(name);
  ctx.info(
    `✔ ${existing ? 'updated' : 'saved'} profile "${name}": ${base.url}, project ${projectId}, key ${maskKey(store.apiKey(name))}${store.current() === name ? ' (current)' : ''}${verify ? '' : ' (not checked against the server)'}`,
  );
}

/** The saved key where the profile stays on its site; none where it moves to another (the key
 * belongs to the site it was saved for, as every other command holds it: checkKeyDestination). */
function keyFor(baseUrl: string | undefined, existing: Adding['existing'], stored: string | undefined): string | undefined {
  if (!existing || baseUrl === undefined) return stored;
  return new URL(baseUrl).origin === new URL(existing.base_url).origin ? stored : undefined;
}

/** The profile being added, and what it replaces. */
interface Adding {
  ctx: Context;
  options: ProfileAddOptions;
  name: string;
  existing: ReturnType<Awaited<ReturnType<Context['store']>>['get']>;
  stored: string | undefined;
  prompter: Awaited<ReturnType<Context['prompter']>>;
  /** On a terminal: what is missing is asked. */
  ask: boolean;
}

/** Nothing can be asked: every flag that is missing is named at once, and a profile without a
 * site, a project or a key is never saved (a default site would point a typo at PostHog Cloud). */
function refuseMissingFlags({ ctx, options, name, existing, stored }: Adding, given: { projectId?: string } | undefined): void {
  const missing = [
    ...(given || existing ? [] : ['--base-url <url>']),
    ...(ctx.globals.project || given?.projectId || existing?.project_id ? [] : ['--project <id>']),
    ...(options.apiKeyStdin || stored ? [] : ['--api-key-stdin (with the key on standard input)']),
  ];
  if (missing.length)
    throw new UsageError(
      `profile add ${name}: missing ${missing.join(', ')}`,
      'off a terminal nothing is asked, e.g. `printf %s "$POSTHOG_KEY" | hogctl profile add ci --base-url https://eu.posthog.com --project 42 --api-key-stdin`',
    );
}

/** --base-url, else asked on a terminal (the saved one the default), else the saved one. */
async function askBaseUrl({ ctx, existing, prompter, ask }: Adding): Promise<{ url: string; projectId?: string }> {
  let baseUrl = ctx.globals.baseUrl;
  if (!baseUrl && ask) {
    // The choices go on a line of their own (wrapped at spaces): inquirer's prompt line, with the
    // default after it, would run past 80 columns and break mid-address.
    ctx.info('Your PostHog: https://us.posthog.com (US Cloud), https://eu.posthog.com (EU Cloud) or your own address.');
    baseUrl = await prompter.input('PostHog base URL:', {
      default: existing?.base_url ?? DEFAULT_BASE_URL,
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
  return normalizeBaseUrl(baseUrl ?? existing?.base_url ?? DEFAULT_BASE_URL);
}

type KeyClient = () => ReturnType<Context['client']>;

/** The key (piped, asked, or the saved one), checked against the server unless --no-verify; on
 * a terminal a wrong one is asked again. Returns the new key (undefined: keep the saved one) and
 * a client that sends the key in use. */
async function checkedKey(a: Adding, baseUrl: string, verify: boolean): Promise<{ apiKey: string | undefined; client: KeyClient }> {
  const { ctx, options, stored, prompter } = a;
  let apiKey: string | undefined;
  if (options.apiKeyStdin) apiKey = await readSecretFromStdin(ctx.io.stdin, 'API key', '--api-key-stdin');
  else if (a.ask)
    apiKey =
      (
        await prompter.password(
          stored ? `Personal API key (input hidden; Enter keeps ${maskKey(stored)}):` : 'Personal API key (input hidden):',
        )
      ).trim() || undefined;
  let key = apiKey ?? stored;
  if (!key)
    throw new UsageError(
      `no API key given: a profile without one is not saved`,
      'paste a personal API key (phx_...) when asked, or pipe it with --api-key-stdin',
    );
  const client = async () => {
    const k = key as string;
    return ctx.client(
      { baseUrl, allowInsecureHttp: Boolean(options.allowInsecureHttp), sources: { baseUrl: 'flag' } },
      { headers: () => ({ authorization: `Bearer ${k}` }), secrets: () => [k] },
    );
  };
  if (verify) {
    for (let attempt = 1; ; attempt++) {
      const problem = await checkKey(await client(), baseUrl);
      if (!problem) break;
      failOrAskAgain(a, baseUrl, problem, attempt);
      apiKey = (await prompter.password('Personal API key (input hidden):')).trim() || undefined;
      key = apiKey ?? stored;
      if (!key) throw new UsageError('no API key given: a profile without one is not saved');
    }
  }
  return { apiKey, client };
}

/** Says what is wrong, and on a terminal lets it be asked again; off a terminal, or after ATTEMPTS, fails. */
function failOrAskAgain(a: Adding, baseUrl: string, problem: Problem, attempt: number): void {
  if (problem.kind === 'unreachable') throw unreachable(baseUrl, problem.error);
  if (!a.ask || attempt >= ATTEMPTS) {
    if (problem.error.hint && !/--no-verify/.test(problem.error.hint))
      (problem.error as { hint?: string }).hint = `${problem.error.hint}; or save it unchecked with --no-verify`;
    throw problem.error;
  }
  a.ctx.io.stderr.write(`${problem.error.message}\n${problem.error.hint ? `  ${problem.error.hint}\n` : ''}`);
}

/** The project: --project (or the base URL's), else picked on a terminal from those the key
 * sees, else the saved one; a name resolved to its id; checked unless --no-verify. */
async function checkedProject(a: Adding, base: { url: string; projectId?: string }, client: KeyClient, verify: boolean): Promise<string> {
  const { ctx, existing, prompter } = a;
  let projectId = ctx.globals.project ?? base.projectId;
  if (!projectId && a.ask) {
    const projects = await allProjects(await client());
    if (projects.length === 0)
      throw new UsageError('this API key sees no projects', 'check the key and the base URL, or pass --project <id>');
    const saved = projects.find((p) => String(p.id) === existing?.project_id)?.id;
    projectId = String(
      await prompter.select(
        'Project:',
        projects.map((p) => ({ name: `${p.name} (${p.id})`, value: p.id })),
        { default: saved },
      ),
    );
  }
  projectId ??= existing?.project_id;
  if (!projectId) throw new UsageError('no project given', 'pass --project <id>; `hogctl projects list` shows the ids your key can see');
  checkProjectId(projectId);
  // A profile keeps the id, which stays the same when the project is renamed.
  if (!isProjectId(projectId)) {
    if (!verify) throw new UsageError(`--project "${projectId}" is a name, and --no-verify cannot look it up`, 'give the id');
    projectId = projectByName(projectId, await allProjects(await client()));
  }
  if (verify) {
    for (let attempt = 1; ; attempt++) {
      const problem = await checkProject(await client(), base.url, projectId);
      if (!problem) break;
      failOrAskAgain(a, base.url, problem, attempt);
      projectId = (await prompter.input('Project id (`hogctl projects list` shows them):')).trim();
      checkProjectId(projectId);
    }
  }
  return projectId;
}

/** A site that cannot be reached is not saved as if it were checked: say so, and how to save it anyway. */
function unreachable(baseUrl: string, error: CliError): CliError {
  error.message = `could not reach ${baseUrl} to check the key and project (${error.message}); nothing was saved`;
  error.hint = 'check the URL and the network, or save it unchecked with --no-verify (for an offline set-up)';
  return error;
}
