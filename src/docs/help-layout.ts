// The layout of every --help, as `gh` and `kubectl` users expect it: usage, the description's
// first paragraph, then what is particular to the command (arguments, its commands, its options),
// the global flags (described under "Global flags" in `hogctl --help`, named only under
// "Inherited flags" in a subcommand's), and the rest of the description last, under "Details":
// the options stay on the first screen however much a verb has to explain. A command that uses only some of the global flags
// (sandbox, demo, completion, help) lists only those.
import type { Command, Help, Option } from 'commander';

const relevantGlobals = new WeakMap<Command, string[]>();

/** Lists only these global flags (long names, e.g. '--quiet') in the help of `command`. */
export function globalsUsed(command: Command, flags: string[]): Command {
  relevantGlobals.set(command, flags);
  return command;
}

const isHelp = (o: Option) => o.long === '--help';
/** Narrower than this, a description column beside its term is too thin (commander's own
 * threshold, `minWidthToWrap`, under which it stops wrapping altogether). */
const MIN_DESCRIPTION_WIDTH = 40;
/** Text set under its term still wraps on a terminal this narrow. */
export const MIN_WIDTH_TO_WRAP = 20;

export function formatHelp(cmd: Command, helper: Help): string {
  const helpWidth = helper.helpWidth ?? 80;
  // The root's own flags are the global ones.
  const own = cmd.parent ? helper.visibleOptions(cmd).filter((o) => !isHelp(o)) : [];
  const used = relevantGlobals.get(cmd);
  const globals = [
    ...(cmd.parent ? helper.visibleGlobalOptions(cmd) : helper.visibleOptions(cmd).filter((o) => !isHelp(o))).filter(
      (o) => !used || used.includes(o.long ?? ''),
    ),
    ...helper.visibleOptions(cmd).filter(isHelp),
  ];
  const arguments_ = helper.visibleArguments(cmd);
  const commands = helper.visibleCommands(cmd);

  const optionTerm = (o: Option) => helper.styleOptionTerm(helper.optionTerm(o));
  const termWidth = Math.max(
    0,
    // A subcommand names its global flags apart (inheritedFlags), so they take no column here.
    ...[...own, ...(cmd.parent ? [] : globals)].map((o) => helper.displayWidth(optionTerm(o))),
    ...arguments_.map((a) => helper.displayWidth(helper.styleArgumentTerm(helper.argumentTerm(a)))),
    ...commands.map((c) => helper.displayWidth(helper.styleSubcommandTerm(helper.subcommandTerm(c)))),
  );
  // On a narrow terminal the description column would be too thin to wrap (commander then leaves
  // it unwrapped, past the edge): each description goes under its term instead, wrapped.
  const narrow = helpWidth - termWidth - 4 < MIN_DESCRIPTION_WIDTH;
  const item = (term: string, description: string) =>
    narrow
      ? `  ${term}${description ? `\n${helper.boxWrap(description, helpWidth - 6).replace(/^/gm, '      ')}` : ''}`
      : helper.formatItem(term, termWidth, description, helper);
  const options = (list: Option[]) => list.map((o) => item(optionTerm(o), helper.styleOptionDescription(helper.optionDescription(o))));

  let out = [`${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(cmd))}`, ''];
  const [lead, ...rest] = helper.commandDescription(cmd).split('\n\n');
  // Where the long explanations are (`More in \`hogctl help <topic>\``) is said before the options:
  // under Details, after some eighty lines of options, a person at a terminal would not see it.
  const pointers = rest.filter((p) => p.startsWith('More in `hogctl help '));
  const details = rest.filter((p) => !pointers.includes(p));
  for (const paragraph of lead ? [lead, ...pointers] : pointers)
    out.push(helper.boxWrap(helper.styleCommandDescription(paragraph), helpWidth), '');
  out = out.concat(
    helper.formatItemList(
      'Arguments:',
      arguments_.map((a) =>
        item(helper.styleArgumentTerm(helper.argumentTerm(a)), helper.styleArgumentDescription(helper.argumentDescription(a))),
      ),
      helper,
    ),
    helper.formatItemList(
      'Commands:',
      commands.map((c) =>
        item(helper.styleSubcommandTerm(helper.subcommandTerm(c)), helper.styleSubcommandDescription(helper.subcommandDescription(c))),
      ),
      helper,
    ),
    helper.formatItemList('Options:', options(own), helper),
    cmd.parent ? inheritedFlags(globals, helper, helpWidth) : helper.formatItemList('Global flags:', options(globals), helper),
  );
  if (details.length > 0)
    out.push(
      helper.styleTitle('Details:'),
      details.map((p) => helper.boxWrap(helper.styleCommandDescription(p), helpWidth - 2).replace(/^(?=.)/gm, '  ')).join('\n\n'),
      '',
    );
  return out.join('\n');
}

/**
 * A subcommand's global flags as gh shows them: their terms only, a few to a line, since
 * `hogctl --help` describes each. Sixteen described lines repeated under every verb pushed its
 * own options off the screen.
 */
function inheritedFlags(globals: Option[], helper: Help, helpWidth: number): string[] {
  const terms = globals.filter((o) => o.long !== '--version').map((o) => helper.optionTerm(o).replace(/^-(\w), /, '-$1/'));
  if (terms.length === 0) return [];
  const lines: string[] = [];
  let line = '';
  for (const term of terms) {
    if (line && 2 + line.length + 2 + term.length > helpWidth) {
      lines.push(`  ${line}`);
      line = '';
    }
    line += line ? `  ${term}` : term;
  }
  lines.push(`  ${line}`);
  return [helper.styleTitle('Inherited flags (see hogctl --help):'), ...lines, ''];
}

/**
 * How a command is listed in its group: name, alias and arguments, without commander's
 * "[options]" (its own help has the full usage), so that the descriptions keep room to wrap at
 * 80 columns.
 */
export function subcommandTerm(cmd: Command): string {
  const alias = cmd.aliases()[0];
  return [
    `${cmd.name()}${alias ? `|${alias}` : ''}`,
    ...cmd.registeredArguments.map((a) =>
      a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`,
    ),
  ].join(' ');
}
