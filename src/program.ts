// The commander tree: global flags, groups and verbs. Only the group and verb the command line
// names are loaded (each is a lazy import), so `hogctl --help` and `hogctl persons get` parse a
// fraction of the code; completion scripts and docs ask for the whole tree.
//
// The import rule: verbs and everything they use import statically. Only three kinds of code
// use import(): the verb loaders (this file, cli/lazy-verb.ts, commands/<group>/index.ts), the
// Context (the HTTP client, session jar and prompts load when a verb first asks for them), and
// the wrappers of heavy modules (chalk, csv-parse, csv-stringify, uqr, the sandbox). A lazy
// import inside a verb saves nothing once the loader has picked the verb.
// test/unit/repository/import-graph.test.ts holds every file to this rule.
import { Command, Option } from 'commander';
import { VERSION, type Deps } from './context.js';
import { type RootCommand } from './cli/with-context.js';
import { examples, group } from './cli/help-text.js';
import { loadVerbs, type LazyVerb } from './cli/lazy-verb.js';
import { profileVerbs } from './commands/profile/index.js';
import { authVerbs } from './commands/auth/index.js';
import { projectsVerbs } from './commands/projects/index.js';
import { personsVerbs } from './commands/persons/index.js';
import { eventsVerbs } from './commands/events/index.js';
import { usersVerbs } from './commands/users/index.js';
import { emailVerbs } from './commands/email/index.js';
import { evidenceVerbs } from './commands/evidence/index.js';
import { helpWidth } from './io/streams.js';
import { MIN_WIDTH_TO_WRAP, formatHelp, subcommandTerm } from './docs/help-layout.js';
import { REFERENCE_DIR } from './docs/reference.js';

interface GroupEntry {
  name: string;
  summary: string;
  examples: string[];
  verbs: LazyVerb[];
}

const GROUPS: GroupEntry[] = [
  {
    name: 'profile',
    summary: 'manage saved profiles (base URL, project, API key)',
    examples: ['hogctl profile add prod', 'hogctl profile list'],
    verbs: profileVerbs,
  },
  {
    name: 'auth',
    summary: 'sign in with a session, for commands that refuse API keys',
    examples: ['hogctl auth login', 'hogctl auth status'],
    verbs: authVerbs,
  },
  {
    name: 'projects',
    summary: 'list the projects your key can see',
    examples: ['hogctl projects list'],
    verbs: projectsVerbs,
  },
  {
    name: 'persons',
    summary: 'list, inspect and manage persons',
    examples: ['hogctl persons list --limit 10', 'hogctl persons get 42'],
    verbs: personsVerbs,
  },
  {
    name: 'events',
    summary: "delete events through PostHog's self-service deletion requests",
    examples: ['hogctl events delete --distinct-id anon-7f3a --dry-run', 'hogctl events deletion-requests'],
    verbs: eventsVerbs,
  },
  {
    name: 'users',
    summary: 'show and change your user, and manage its 2FA',
    examples: ['hogctl users me', 'hogctl users 2fa status'],
    verbs: usersVerbs,
  },
  {
    name: 'email',
    summary: 'verify your e-mail address and manage a pending change',
    examples: ['hogctl email verify "<link from the e-mail>"', 'hogctl email request-verification'],
    verbs: emailVerbs,
  },
  {
    name: 'evidence',
    summary: 'move the evidence key that signs bulk plans and names erased addresses',
    examples: [
      'hogctl evidence export-key > evidence-key.txt',
      'hogctl evidence export-key | HOGCTL_CONFIG_DIR=./ci-config hogctl evidence import-key',
    ],
    verbs: evidenceVerbs,
  },
];

/** The commands beside the groups, loaded like verbs: only the one named, or all of them. */
export const ROOT_COMMANDS: LazyVerb[] = [
  { name: 'api', load: async () => (await import('./commands/root/api.js')).apiCommand() },
  { name: 'sandbox', load: async () => (await import('./commands/root/sandbox.js')).sandboxCommand() },
  { name: 'mcp', load: async () => (await import('./commands/root/mcp.js')).mcpCommand() },
  { name: 'demo', load: async () => (await import('./commands/root/demo.js')).demoCommand() },
  { name: 'completion', load: async () => (await import('./commands/root/completion.js')).completionCommand() },
  { name: 'help', load: async () => (await import('./commands/root/help.js')).helpCommand() },
];

/** Global flags that take a value, so that the value is not mistaken for a command name. */
const VALUE_FLAGS = new Set(['--profile', '--base-url', '--project', '-o', '--output', '--fields', '--jq', '--template', '--timeout']);

/** The words of argv that may name commands, skipping global flags and their values. */
export function commandWords(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return [...words, ...argv.slice(i + 1)];
    if (!arg.startsWith('-')) words.push(arg);
    else if (VALUE_FLAGS.has(arg)) i++;
  }
  return words;
}

/**
 * The command line to parse: a bare group (`hogctl persons`) or a bare `hogctl` asks for its
 * help, printed on stdout with exit 0, as `git` and `gh` do, instead of commander's error.
 */
export function helpForBareGroup(program: Command, argv: string[]): string[] {
  if (argv.some((arg) => arg === '-V' || arg === '--version' || arg === '-h' || arg === '--help')) return argv;
  let command: Command = program;
  for (const word of commandWords(argv)) {
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) return argv;
    command = next;
  }
  // A command with subcommands and an action of its own (`hogctl mcp`) runs bare.
  const acts = Boolean((command as unknown as { _actionHandler?: unknown })._actionHandler);
  return command.commands.length > 0 && !acts ? [...argv, '--help'] : argv;
}

/**
 * Builds the tree for this command line. With `argv` undefined, or for `completion` and
 * `help`, every command is loaded. Otherwise only the named group (and in it only the named
 * verb, when there is one), the other groups standing in as names with their summaries; or, when
 * no group is named, the named root command, or all of them (root help, typos).
 */
export async function buildProgram(deps: Deps, argv?: string[]): Promise<RootCommand> {
  const program = new Command('hogctl') as RootCommand;
  program.deps = deps;
  program
    .description('Administer PostHog persons and users from the command line.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'use this profile (env HOGCTL_PROFILE)')
    .option('--base-url <url>', 'PostHog site URL, e.g. https://eu.posthog.com (env HOGCTL_BASE_URL)')
    .option('--project <id|name>', 'project id, or its name as PostHog shows it (env HOGCTL_PROJECT_ID)')
    .addOption(new Option('-o, --output <format>', 'output format: table, json, ndjson or csv (env HOGCTL_OUTPUT)'))
    .option('--fields <list>', 'comma-separated fields to print, e.g. uuid,properties.email')
    .option('--jq <expression>', "filter the JSON output with a jq expression, e.g. '.[].uuid'")
    .option('--template <string>', "format the JSON output with a Handlebars template, e.g. '{{#each this}}{{uuid}}{{/each}}'")
    .option('--wide', 'on a terminal, show every column in full instead of fitting the width')
    .option('-q, --quiet', 'print nothing but data and errors')
    .option('--no-color', 'never colour the output (also NO_COLOR)')
    .option('--no-input', 'never prompt; fail instead when something is missing')
    .option('--debug', 'log every HTTP request to stderr (secrets redacted)')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default 30)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false, formatHelp, subcommandTerm, minWidthToWrap: MIN_WIDTH_TO_WRAP })
    .configureOutput({
      writeOut: (s) => deps.io.stdout.write(s),
      writeErr: (s) => deps.io.stderr.write(s),
      getOutHelpWidth: () => helpWidth(deps.io.stdout),
      getErrHelpWidth: () => helpWidth(deps.io.stderr),
    })
    .addHelpText(
      'after',
      examples(
        'hogctl demo',
        'hogctl profile add prod',
        'hogctl persons list --where plan=team -o csv',
        "hogctl persons list --all --jq '.[].properties.email'",
        'HOGCTL_API_KEY=... hogctl persons get --distinct-id user-881 -o json',
      ) +
        '\nMore: hogctl help exit-codes, hogctl help environment\n' +
        // The manual beside the help: one page a command group, generated from these helps.
        `Reference, one page a command group: ${REFERENCE_DIR}/ in hogctl's source\n`,
    );

  const [word, verb] = argv === undefined ? [] : commandWords(argv);
  const everything = argv === undefined || word === 'completion' || word === 'help';
  for (const entry of GROUPS) {
    const verbs = everything || entry.name === word ? await loadVerbs(entry.verbs, everything ? undefined : verb) : [];
    program.addCommand(group(entry.name, entry.summary, verbs, entry.examples));
  }
  // A command line naming a group needs none of them.
  const roots = GROUPS.some((entry) => entry.name === word) ? [] : await loadVerbs(ROOT_COMMANDS, everything ? undefined : word);
  roots.forEach((command) => program.addCommand(command));
  program.helpCommand(false);

  // Every command shares the root's output, error handling and typo suggestions.
  const configure = (command: Command) => {
    command
      .helpOption('-h, --help', 'show help')
      .exitOverride()
      .configureOutput(program.configureOutput())
      .showSuggestionAfterError(true)
      .showHelpAfterError('(run the command with --help for usage and examples)')
      .configureHelp({ showGlobalOptions: true, sortSubcommands: false, formatHelp, subcommandTerm, minWidthToWrap: MIN_WIDTH_TO_WRAP });
    command.commands.forEach(configure);
  };
  configure(program);
  return program;
}
