// Help-text building blocks: the examples block every command carries, and group commands.
import { Command } from 'commander';

/** The help text block of examples every command carries. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/** A command that only groups verbs: its help lists them and shows examples. */
export function group(name: string, summary: string, verbs: Command[], example: string[]): Command {
  const command = new Command(name).summary(summary).description(`${summary.charAt(0).toUpperCase()}${summary.slice(1)}.`);
  for (const verb of verbs) command.addCommand(verb);
  return command.addHelpText('after', examples(...example));
}
