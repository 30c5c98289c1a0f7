// `hogctl sandbox`: runs the local PostHog-compatible server until Ctrl-C or SIGTERM. The server
// (packages/sandbox) loads only when the command runs (shared/start-sandbox.ts), so
// `hogctl sandbox --help` stays fast.
import { rename, rm, writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseCount } from '../../cli/flags.js';
import { globalsUsed } from '../../docs/help-layout.js';
import { untilStdoutReaderGone } from '../../io/pipe-reader.js';
import { startSandbox } from './shared/start-sandbox.js';
import { hogctlCommand } from './shared/hogctl-command.js';
import { fitToTerminal } from '../../io/columns.js';
import type { Sandbox } from '@hogctl/sandbox';
import { formatNumber } from '../../io/counts.js';

/** Groups `--duplicates` seeds when given no number. */
const DUPLICATE_GROUPS = 6;

export interface SandboxCommandOptions {
  port: string;
  host: string;
  persons: string;
  eventsPerPerson?: string;
  duplicates?: string | true;
  projectPersons?: string;
  seed: string;
  rateLimit?: string;
  faults?: string;
  key?: string[];
  applyDelay?: string;
  bulkDeleteResponse?: string;
  loginCodes?: boolean;
  linkOrigin?: string;
  readyFile?: string;
}

export function sandboxCommand(): Command {
  const command = new Command('sandbox')
    .summary('run a local PostHog-compatible server with seeded persons')
    .description(
      'Runs a local server that behaves like the newest PostHog API for persons, projects and users, quirks included, ' +
        'with deterministic seeded persons and throwaway API keys. For demos, scripts and end-to-end tests; nothing leaves this machine. ' +
        'The URL, project id and an all-scopes key are printed on stderr, and once as a JSON line on stdout for scripts.',
    )
    .option('--port <n>', 'port to listen on; 0 picks a free one', '0')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--persons <n>', 'how many persons to seed into project 1', '250')
    .option('--events-per-person <n>', "events in each seeded person's history (HogQL's events table); 0 for none", '3')
    .option(
      '--duplicates [groups]',
      `also seed groups of duplicate persons in project 1 (one e-mail in varied case, identified and anonymous, with events), to try \`persons duplicates\`, \`merge\` and \`--undo\`; default ${DUPLICATE_GROUPS} groups`,
    )
    .option(
      '--project-persons <id=n,...>',
      'persons of other projects (default 2=20,3=5); an id above 3 adds a project to the organisation, e.g. 2=400,4=100',
    )
    .option('--seed <n>', 'seed for the generated data; the same seed gives the same persons and, on a loopback address, the same key', '1')
    .option(
      '--rate-limit <spec>',
      "throttle like PostHog: 'cloud', a per-minute number like 600, or per class with windows of any length, e.g. delete=8/1s,80/10s,read=1200,query=120/hour (default off)",
    )
    .option(
      '--login-codes',
      'accounts without 2FA confirm a sign-in with a 6-digit code sent to the outbox (GET /_sandbox/outbox), as on PostHog Cloud',
    )
    .option(
      '--faults <spec>',
      'inject failures into /api/ and capture requests, e.g. 429=0.2,500=0.05,drop=0.02,slow=0.1@1500,seed=7,path=bulk_delete',
    )
    .option(
      '--key <phx_name:scopes>',
      'add a throwaway key with these scopes, e.g. phx_ro:person:read or phx_p1:person:write@1 (repeatable)',
      collect,
    )
    .option('--apply-delay <ms>', 'delay before accepted (202) writes become visible', '50')
    .option(
      '--bulk-delete-response <shape>',
      "how bulk_delete answers: summary (newest), queued (persons_queued_for_deletion), empty (older servers' empty 202) or absent (servers from before bulk_delete: 405)",
      'summary',
    )
    .option(
      '--link-origin <origin>',
      "build paging links with this origin instead of the request's, like a PostHog behind a TLS proxy that hands out http:// links, e.g. http://127.0.0.1:8000",
    )
    .option(
      '--ready-file <path>',
      'once listening, write the URL, port, project id and key there as JSON (removed on exit): scripts wait for the file',
    )
    .addHelpText(
      'after',
      examples(
        'hogctl sandbox --persons 100000 --port 8010',
        'hogctl sandbox --duplicates   # then: hogctl persons duplicates',
        'hogctl sandbox --rate-limit cloud --faults 429=0.1,503=0.05',
        'hogctl sandbox --key phx_readonly:person:read --key phx_p2:person:write@2',
        'hogctl sandbox -q --ready-file sandbox.json &   # then: until [ -s sandbox.json ]; do sleep 0.1; done',
      ),
    )
    .action(withContext(sandboxRun));
  // The server reads no profile, key or output format: only -q changes what it prints.
  return globalsUsed(command, ['--quiet']);
}

function linkOrigin(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // Refused below.
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== raw.replace(/\/$/, '')) {
    throw new UsageError(`invalid --link-origin "${raw}": expected a scheme, host and optional port, e.g. http://127.0.0.1:8000`);
  }
  return url.origin;
}

/** `2=400,4=100`: persons per project id. */
function parseProjectPersons(raw: string): Record<number, number> {
  const out: Record<number, number> = {};
  for (const part of raw.split(',')) {
    const m = /^\s*(\d+)\s*=\s*(\d+)\s*$/.exec(part);
    if (!m || Number(m[1]) < 2) {
      throw new UsageError(
        `invalid --project-persons "${raw}": expected project=persons pairs for projects 2 and up, e.g. 2=400,4=100`,
        'project 1 takes --persons',
      );
    }
    out[Number(m[1])] = parseCount(m[2], '--project-persons', 0);
  }
  return out;
}

/**
 * Each project and its persons, one a line. Project 3 is in an organisation the sandbox's user is
 * not a member of: it is there so that a key meeting a project it cannot see (403) can be tried.
 */
function projectLines(stores: Map<number, { size: number }>, seed: number): string {
  return [...stores]
    .map(([id, store]) => {
      const persons = `${id}: ${formatNumber(store.size)} persons`;
      if (id === 1) return `${persons} (seed ${seed})`;
      if (id === 3) return `${persons} in another organisation (the key gets 403 there)`;
      return persons;
    })
    .join('\n              ');
}

/** Resolves on Ctrl-C (main's abort signal, or SIGINT when run without one) or SIGTERM. */
function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGTERM', done);
      process.off('SIGINT', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    if (signal?.aborted) return resolve();
    process.once('SIGTERM', done);
    if (signal) signal.addEventListener('abort', done, { once: true });
    else process.once('SIGINT', done);
  });
}

export async function sandboxRun(ctx: Context, options: SandboxCommandOptions, stop?: Promise<void>): Promise<void> {
  const settings = sandboxSettings(options);
  const quiet = Boolean(ctx.globals.quiet);
  const sandbox = await listen(ctx, options, settings, quiet);
  // Sandbox keys are throwaway and local, so printing them is the point (unlike real keys).
  if (options.readyFile) {
    await writeReadyFile(options.readyFile, readyRecord(sandbox, options.host)).catch(async (error) => {
      await sandbox.close();
      throw error;
    });
  }
  ctx.io.stdout.write(
    `{"url": ${JSON.stringify(sandbox.url)}, "project_id": ${sandbox.projectId}, "api_key": ${JSON.stringify(sandbox.defaultKey)}}\n`,
  );
  if (!quiet) ctx.io.stderr.write(`${fitToTerminal(ctx.io.stderr, banner(ctx, options, settings, sandbox))}\n`);

  // `hogctl sandbox -q | head -1`: once the reader of the line is gone, so is the server.
  const reader = untilStdoutReaderGone();
  try {
    await Promise.race([stop ?? untilStopped(ctx.deps.signal), reader.gone]);
  } finally {
    reader.stop();
    if (options.readyFile) await rm(options.readyFile, { force: true });
    await sandbox.close();
    if (!quiet) ctx.io.stderr.write('sandbox stopped\n');
  }
}

/** The flags' values, checked. */
function sandboxSettings(options: SandboxCommandOptions) {
  const port = parseCount(options.port, '--port', 0);
  if (port > 65535) throw new UsageError(`invalid --port "${options.port}": expected 0 to 65535`);
  const duplicates =
    options.duplicates === undefined
      ? 0
      : options.duplicates === true
        ? DUPLICATE_GROUPS
        : parseCount(options.duplicates, '--duplicates', 1);
  return {
    port,
    persons: parseCount(options.persons, '--persons', 0),
    eventsPerPerson: parseCount(options.eventsPerPerson ?? '3', '--events-per-person', 0),
    projectPersons: options.projectPersons === undefined ? undefined : parseProjectPersons(options.projectPersons),
    seed: parseCount(options.seed, '--seed', 0),
    duplicates,
    applyDelayMs: parseCount(options.applyDelay ?? '50', '--apply-delay', 0),
    // A key that survives a restart keeps a saved profile working; only where nobody else can reach.
    stableKey: /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(options.host),
  };
}

type SandboxSettings = ReturnType<typeof sandboxSettings>;

/** The sandbox, listening; a port in use or a host it cannot listen on said as such. */
async function listen(ctx: Context, options: SandboxCommandOptions, settings: SandboxSettings, quiet: boolean): Promise<Sandbox> {
  const { port } = settings;
  try {
    return await startSandbox({
      port,
      host: options.host,
      persons: settings.persons,
      eventsPerPerson: settings.eventsPerPerson,
      duplicates: settings.duplicates,
      projectPersons: settings.projectPersons,
      seed: settings.seed,
      rateLimit: options.rateLimit,
      faults: options.faults,
      keys: options.key,
      keyFromSeed: settings.stableKey,
      applyDelayMs: settings.applyDelayMs,
      bulkDeleteResponse: options.bulkDeleteResponse as 'summary' | undefined,
      loginCodes: Boolean(options.loginCodes),
      linkOrigin: options.linkOrigin === undefined ? undefined : linkOrigin(options.linkOrigin),
      quiet,
      log: (line) => ctx.io.stderr.write(`${line}\n`),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new CliError(
        `port ${port} on ${options.host} is already in use`,
        'pick another with --port <n>, or --port 0 for any free port',
      );
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES')
      throw new CliError(`cannot listen on ${options.host}:${port} (${code})`, 'use --host 127.0.0.1 and a port above 1024');
    if (err instanceof Error && /^invalid /.test(err.message)) throw new UsageError(err.message);
    throw err;
  }
}

/** What --ready-file holds. */
function readyRecord(sandbox: Sandbox, host: string): Record<string, unknown> {
  return { url: sandbox.url, host, port: sandbox.port, project_id: sandbox.projectId, api_key: sandbox.defaultKey, pid: process.pid };
}

/** What stderr shows on a start without --quiet: where the sandbox is, as whom, and how to save it. */
function banner(ctx: Context, options: SandboxCommandOptions, settings: SandboxSettings, sandbox: Sandbox): string {
  const { seed, duplicates, stableKey } = settings;
  const extra = options.key?.length ? `\n  more keys:  ${options.key.map((k) => k.split(':')[0]).join(', ')}` : '';
  const fixedPort = settings.port === 0 ? ` --port ${sandbox.port}` : '';
  return (
    `hogctl sandbox: a local PostHog-compatible server (throwaway data and keys)\n` +
    `  URL:        ${sandbox.url}\n` +
    `  key:        ${sandbox.defaultKey}  (all scopes)${extra}\n` +
    `  projects:   ${projectLines(sandbox.stores, seed)}\n` +
    (duplicates ? `  duplicates: ${duplicates} groups in project 1 (\`hogctl persons duplicates\`)\n` : '') +
    `  sign-in:    ${sandbox.login.email} / ${sandbox.login.password}  (\`hogctl auth login\`)\n` +
    `  2fa-user:   ${sandbox.twoFactorUser.email} / ${sandbox.twoFactorUser.password}\n` +
    `  totp:       ${sandbox.twoFactorUser.totpSecret}  (the 2fa-user's secret)\n` +
    `  mail:       printed here, and kept at ${sandbox.url}/_sandbox/outbox\n` +
    `  deletions:  events wait for the weekly batch; \`hogctl api POST /_sandbox/deletions/run\` runs it now\n` +
    `  limits:     rate ${options.rateLimit ?? 'off'}, faults ${options.faults ?? 'none'}\n\n` +
    (stableKey
      ? `Save it as a profile (the key stays the same on every start with --seed ${seed}${fixedPort ? `; keep the port with${fixedPort}` : ''}):\n`
      : `Save it as a profile (the key is new on every start when not on a loopback address):\n`) +
    `  printf %s ${sandbox.defaultKey} |\n` +
    `    ${hogctlCommand(ctx.env)} profile add sandbox --base-url ${sandbox.url} \\\n` +
    `      --project ${sandbox.projectId} --api-key-stdin\n\n` +
    `Press Ctrl-C to stop.`
  );
}

async function writeReadyFile(path: string, ready: Record<string, unknown>): Promise<void> {
  const partial = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(partial, `${JSON.stringify(ready, null, 2)}\n`, { mode: 0o600 });
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw new UsageError(`cannot write --ready-file ${path}: ${(error as Error).message}`, 'give a path in a directory you can write to');
  }
}
