// The commander tree: global flags, groups and verbs. Building it imports only commander and
// the small verb modules; each verb loads what it needs when it runs.
import { Command, Option } from 'commander';
import { VERSION, type Deps } from './context.js';
import type { RootCommand } from './commands/with-context.js';
import { examples } from './commands/with-context.js';
import { personsListCommand } from './commands/persons/list.js';
import { personsGetCommand } from './commands/persons/get.js';
import { personsUpdateCommand } from './commands/persons/update.js';
import { personsDeleteCommand } from './commands/persons/delete.js';
import { personsBulkDeleteCommand } from './commands/persons/bulk-delete.js';
import { personsSetPropCommand } from './commands/persons/set-prop.js';
import { personsUnsetPropCommand } from './commands/persons/unset-prop.js';
import { personsDeleteEventsCommand } from './commands/persons/delete-events.js';
import { personsDeleteRecordingsCommand } from './commands/persons/delete-recordings.js';
import { personsSplitCommand } from './commands/persons/split.js';
import { personsActivityCommand } from './commands/persons/activity.js';
import { personsDeletionStatusCommand } from './commands/persons/deletion-status.js';
import { personsQueryCommand } from './commands/persons/query.js';
import { personsCohortsCommand } from './commands/persons/cohorts.js';
import { personsTimelineCommand } from './commands/persons/timeline.js';
import { personsFunnelCommand } from './commands/persons/funnel.js';
import { personsFunnelCorrelationCommand } from './commands/persons/funnel-correlation.js';
import { personsLifecycleCommand } from './commands/persons/lifecycle.js';
import { personsResetDistinctIdCommand } from './commands/persons/reset-distinct-id.js';
import { apiCommand } from './commands/api.js';
import { profileAddCommand } from './commands/profile/add.js';
import { profileListCommand } from './commands/profile/list.js';
import { profileUseCommand } from './commands/profile/use.js';
import { profileShowCommand } from './commands/profile/show.js';
import { profileRemoveCommand } from './commands/profile/remove.js';
import { projectsListCommand } from './commands/projects/list.js';
import { sandboxCommand } from './commands/sandbox.js';
import { demoCommand } from './commands/demo.js';
import { completionCommand } from './commands/completion.js';
import { authLoginCommand } from './commands/auth/login.js';
import { authStatusCommand } from './commands/auth/status.js';
import { authLogoutCommand } from './commands/auth/logout.js';
import { usersMeCommand } from './commands/users/me.js';
import { usersUpdateCommand } from './commands/users/update.js';
import { twoFactorStatusCommand } from './commands/users/2fa/status.js';
import { twoFactorStartCommand } from './commands/users/2fa/start.js';
import { twoFactorValidateCommand } from './commands/users/2fa/validate.js';
import { twoFactorEnableCommand } from './commands/users/2fa/enable.js';
import { twoFactorBackupCodesCommand } from './commands/users/2fa/backup-codes.js';
import { twoFactorDisableCommand } from './commands/users/2fa/disable.js';
import { emailVerifyCommand } from './commands/email/verify.js';
import { emailRequestVerificationCommand } from './commands/email/request-verification.js';
import { emailCancelChangeCommand } from './commands/email/cancel-change.js';

function group(name: string, summary: string, verbs: Command[], example: string[]): Command {
  const command = new Command(name).summary(summary).description(summary.charAt(0).toUpperCase() + summary.slice(1) + '.');
  for (const verb of verbs) command.addCommand(verb);
  return command.addHelpText('after', examples(...example));
}

export function buildProgram(deps: Deps): RootCommand {
  const program = new Command('hogctl') as RootCommand;
  program.deps = deps;
  program
    .description('Administer PostHog persons and users from the command line.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'use this profile (env HOGCTL_PROFILE)')
    .option('--base-url <url>', 'PostHog site URL, e.g. https://eu.posthog.com (env HOGCTL_BASE_URL)')
    .option('--project <id>', 'project id (env HOGCTL_PROJECT_ID)')
    .addOption(new Option('-o, --output <format>', 'output format: table, json, ndjson or csv (env HOGCTL_OUTPUT)'))
    .option('--fields <list>', 'comma-separated fields to print, e.g. id,properties.email')
    .option('-q, --quiet', 'print nothing but data and errors')
    .option('--no-color', 'never colour the output (also NO_COLOR)')
    .option('--no-input', 'never prompt; fail instead when something is missing')
    .option('--debug', 'log every HTTP request to stderr (secrets redacted)')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default 30)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .showHelpAfterError('(run the command with --help for usage and examples)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => deps.io.stdout.write(s),
      writeErr: (s) => deps.io.stderr.write(s),
    })
    .addHelpText(
      'after',
      examples(
        'hogctl demo',
        'hogctl profile add prod',
        'hogctl persons list --where plan=team -o csv',
        'HOGCTL_API_KEY=... hogctl persons get --distinct-id user-881 -o json',
      ),
    );

  program.addCommand(
    group('profile', 'manage saved profiles (base URL, project, API key)', [profileAddCommand(), profileListCommand(), profileUseCommand(), profileShowCommand(), profileRemoveCommand()], [
      'hogctl profile add prod',
      'hogctl profile list',
    ]),
  );
  program.addCommand(
    group('auth', 'sign in with a session, for commands that refuse API keys', [authLoginCommand(), authStatusCommand(), authLogoutCommand()], [
      'hogctl auth login',
      'hogctl auth status',
    ]),
  );
  program.addCommand(group('projects', 'list the projects your key can see', [projectsListCommand()], ['hogctl projects list']));
  program.addCommand(
    group('persons', 'list, inspect and manage persons', [
      personsListCommand(),
      personsGetCommand(),
      personsUpdateCommand(),
      personsDeleteCommand(),
      personsBulkDeleteCommand(),
      personsSetPropCommand(),
      personsUnsetPropCommand(),
      personsDeleteEventsCommand(),
      personsDeleteRecordingsCommand(),
      personsSplitCommand(),
      personsActivityCommand(),
      personsDeletionStatusCommand(),
      personsQueryCommand(),
      personsCohortsCommand(),
      personsTimelineCommand(),
      personsFunnelCommand(),
      personsFunnelCorrelationCommand(),
      personsLifecycleCommand(),
      personsResetDistinctIdCommand(),
    ], ['hogctl persons list --limit 10', 'hogctl persons get 42']),
  );
  program.addCommand(
    group('users', 'show and change your user, and manage its 2FA', [
      usersMeCommand(),
      usersUpdateCommand(),
      group('2fa', 'two-factor authentication: status, setup, backup codes (needs `hogctl auth login`)', [
        twoFactorStatusCommand(),
        twoFactorStartCommand(),
        twoFactorValidateCommand(),
        twoFactorEnableCommand(),
        twoFactorBackupCodesCommand(),
        twoFactorDisableCommand(),
      ], ['hogctl users 2fa enable', 'hogctl users 2fa status']),
    ], ['hogctl users me', 'hogctl users 2fa status']),
  );
  program.addCommand(
    group('email', 'verify your e-mail address and manage a pending change', [emailVerifyCommand(), emailRequestVerificationCommand(), emailCancelChangeCommand()], [
      'hogctl email verify "<link from the e-mail>"',
      'hogctl email request-verification',
    ]),
  );
  program.addCommand(apiCommand());
  program.addCommand(sandboxCommand());
  program.addCommand(demoCommand());
  program.addCommand(completionCommand());

  // Subcommands inherit the output settings and error handling of the root.
  const inherit = (command: Command) => {
    for (const sub of command.commands) {
      sub
        .exitOverride()
        .configureOutput(program.configureOutput())
        .showSuggestionAfterError(true)
        .showHelpAfterError('(run the command with --help for usage and examples)')
        .configureHelp({ showGlobalOptions: true });
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}
