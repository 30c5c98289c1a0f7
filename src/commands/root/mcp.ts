// `hogctl mcp`: serves the Model Context Protocol on stdin and stdout for an agent's client, with
// the profile, host and key of this command line, fixed at start; stdout carries only the
// protocol, notes go to stderr. `hogctl mcp config` prints what to paste into a client.
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parsePolicy, resolveProjectNames, FAMILIES, type McpFlags } from '../../mcp/policy.js';
import { loadSdk } from '../../mcp/sdk.js';
import { allProjects } from '../../api/projects.js';
import { buildServer, offeredTools } from '../../mcp/server.js';
import { CLIENTS, clientConfig, serverArgs } from '../../mcp/client-config.js';

export type McpOptions = McpFlags;

export interface McpConfigOptions {
  client: string;
}

const narrowing = (command: Command) =>
  command
    .option('--read-only', 'offer only the tools that read: no plans, nothing applied')
    .option('--projects <ids|names>', 'the projects tools may touch, by id or name, e.g. 1,Staging (default: any the key can see)')
    .option('--allow <kinds>', `the kinds of tool to offer, comma-separated: ${FAMILIES.join(', ')} (default: all)`);

export function mcpCommand(): Command {
  // --read-only, --projects and --allow are mcp's own: commander hands them to mcp wherever they stand.
  const config = new Command('config')
    .summary('print the configuration to paste into an MCP client (with the flags of `hogctl mcp` given)')
    .addOption(new Option('--client <name>', 'the client').choices([...CLIENTS]).makeOptionMandatory())
    .addHelpText('after', examples('hogctl mcp config --client claude', 'hogctl --profile prod mcp config --client vscode --read-only'))
    .action(withContext(mcpConfigRun));
  return narrowing(
    new Command('mcp')
      .summary('serve persons tools to an AI agent over MCP (stdio); deletions wait for a person')
      .description(
        'Serves the Model Context Protocol on stdin and stdout, with the profile, host and key of this command line, ' +
          'fixed at start: no tool takes a key or a host. Agents read persons, query HogQL, see dry runs and plan erasures, ' +
          'merges, bulk updates and event deletions; a plan runs (plan_apply) only after a person approves that plan through ' +
          'the client: on a one-time page on this machine that the client opens, or in a form it shows where it offers only forms.',
      ),
  )
    .addHelpText(
      'after',
      examples('hogctl mcp', 'hogctl --profile prod mcp --read-only', 'hogctl mcp --projects 1,2 --allow persons,erasure'),
    )
    .addCommand(config)
    .action(withContext(mcpRun));
}

export async function mcpRun(ctx: Context, options: McpOptions): Promise<void> {
  const parsed = parsePolicy(options);
  // The key is checked once, here: a server without one would fail every call.
  const client = await ctx.api();
  const policy = await resolveProjectNames(parsed, () => allProjects(client));
  // A project named by name (--project, HOGCTL_PROJECT_ID) is looked up once too: tools compare ids.
  const own = await ctx.settings();
  const settings = own.projectId === undefined ? own : { ...own, projectId: await ctx.projectId() };
  const sdk = await loadSdk();
  const built = buildServer(sdk, { deps: ctx.deps, globals: ctx.globals, settings, now: ctx.clock.now }, policy);
  const transport = new sdk.StdioServerTransport(ctx.io.stdin, ctx.io.stdout);
  const ended = new Promise<void>((resolve) => {
    ctx.io.stdin.once('end', resolve);
    ctx.io.stdin.once('close', resolve);
    ctx.deps.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await built.server.connect(transport);
  ctx.info(`hogctl mcp: serving ${offeredTools(policy).length} tools for ${settings.baseUrl} on stdio`);
  await ended;
  await built.close();
}

export async function mcpConfigRun(ctx: Context, options: McpConfigOptions): Promise<void> {
  // The flags of `hogctl mcp` (and the global --profile) reach this subcommand with the globals.
  const flags = ctx.globals as McpFlags & { profile?: string };
  parsePolicy(flags);
  const args = serverArgs({ readOnly: flags.readOnly, projects: flags.projects, allow: flags.allow, profile: flags.profile });
  ctx.io.stdout.write(clientConfig(options.client, { command: 'hogctl', args }));
}
