import { Command, Argument } from 'commander';
import { UsageError } from '../errors.js';
import { examples } from './with-context.js';

export function completionCommand(): Command {
  return new Command('completion')
    .summary('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      examples(
        'hogctl completion bash > ~/.local/share/bash-completion/completions/hogctl',
        'hogctl completion zsh > "${fpath[1]}/_hogctl"',
        'hogctl completion fish > ~/.config/fish/completions/hogctl.fish',
      ),
    )
    .action(async (shell: string, _options: unknown, command: Command) => {
      let root = command;
      while (root.parent) root = root.parent;
      const generate = await import('../completion/generate.js');
      const script = shell === 'bash' ? generate.bashScript(root) : shell === 'zsh' ? generate.zshScript(root) : shell === 'fish' ? generate.fishScript(root) : undefined;
      if (script === undefined) throw new UsageError(`unknown shell "${shell}": use bash, zsh or fish`);
      command.configureOutput().writeOut?.(script);
    });
}
