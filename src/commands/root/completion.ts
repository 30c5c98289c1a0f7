import { Command, Argument } from 'commander';
import { UsageError } from '../../errors.js';
import { examples } from '../../cli/help-text.js';
import { globalsUsed } from '../../docs/help-layout.js';
import * as generate from '../../completion/generate.js';

export function completionCommand(): Command {
  const command = new Command('completion')
    .summary('print the shell completion script for bash, zsh or fish')
    .description(
      'Print the completion script for bash, zsh or fish on standard output. It completes commands, flags, output formats, profile names and file names; save it where your shell looks for completions (see the examples) and start a new shell.',
    )
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      examples(
        'mkdir -p ~/.local/share/bash-completion/completions && hogctl completion bash > ~/.local/share/bash-completion/completions/hogctl',
        'mkdir -p ~/.zfunc && hogctl completion zsh > ~/.zfunc/_hogctl   # and in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)',
        'mkdir -p ~/.config/fish/completions && hogctl completion fish > ~/.config/fish/completions/hogctl.fish',
      ),
    )
    .action(async (shell: string, _options: unknown, command: Command) => {
      let root = command;
      while (root.parent) root = root.parent;
      const script =
        shell === 'bash'
          ? generate.bashScript(root)
          : shell === 'zsh'
            ? generate.zshScript(root)
            : shell === 'fish'
              ? generate.fishScript(root)
              : undefined;
      if (script === undefined) throw new UsageError(`unknown shell "${shell}": use bash, zsh or fish`);
      command.configureOutput().writeOut?.(script);
    });
  // The script does not depend on any global flag.
  return globalsUsed(command, []);
}
