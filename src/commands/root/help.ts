import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { examples } from '../../cli/help-text.js';
import { globalsUsed } from '../../docs/help-layout.js';
import { PROSE_TOPICS, TOPICS, topicText } from '../../docs/topics.js';
import { suggest } from '../../cli/suggest.js';

export function helpCommand(): Command {
  const command = new Command('help')
    .summary(`show help for a command, or a topic: ${Object.keys(TOPICS).join(', ')}`)
    .description(
      `Show the help of a command (the same as \`hogctl <command> --help\`), or a topic: exit-codes lists what each exit code means, environment the variables hogctl reads, and ${PROSE_TOPICS.map((name) => `${name} ${(TOPICS[name] as { about: string }).about}`).join('; ')}.`,
    )
    .argument('[words...]', 'a command (e.g. persons list) or a topic')
    .addHelpText('after', examples('hogctl help persons list', 'hogctl help exit-codes', 'hogctl help environment', 'hogctl help erasure'))
    .action(async (words: string[], _options: unknown, command: Command) => {
      const root = command.parent!;
      const write = (text: string) => root.configureOutput().writeOut?.(text);
      if (words.length === 1 && TOPICS[words[0]]) return write(topicText(words[0], root.configureOutput().getOutHelpWidth?.() ?? 80));
      let target: Command = root;
      for (const word of words) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word)) ?? verbOfOneGroup(target, word, words);
        if (!next) {
          const names = [...target.commands.map((c) => c.name()), ...(target === root ? Object.keys(TOPICS) : [])];
          const near = suggest(word, names);
          throw new UsageError(
            `no command or help topic "${words.join(' ')}"`,
            near
              ? `did you mean \`hogctl help ${[...words.slice(0, words.indexOf(word)), near].join(' ')}\`?`
              : 'run `hogctl --help` for the list of commands',
          );
        }
        target = next;
      }
      target.outputHelp();
    });
  return globalsUsed(command, []);
}

/**
 * `hogctl help merge`: a verb named without its group, when only one group has it (`persons
 * merge`). A name several groups share (`list`) is refused with each of them, to pick from.
 */
function verbOfOneGroup(target: Command, word: string, words: string[]): Command | undefined {
  if (target.parent || words.length !== 1) return undefined;
  const found = target.commands.flatMap((group) => group.commands.filter((c) => c.name() === word || c.aliases().includes(word)));
  if (found.length <= 1) return found[0];
  throw new UsageError(
    `"${word}" is a verb of ${found.length} groups`,
    `pick one: ${found.map((c) => `\`hogctl help ${c.parent!.name()} ${c.name()}\``).join(', ')}`,
  );
}
